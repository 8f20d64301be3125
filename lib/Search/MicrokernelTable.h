//===- Search/MicrokernelTable.h - The offline stage's table ----*- C++ -*-===//
//
// The table the offline stage produces, the one the online search reads:
// every measured microkernel and the classes formed from them. It is kept
// in the cache directory as a record of kind "microkernels" whose key names
// the ttile and LLVM versions, the CPU and its features, the family, the
// bounds, the threshold and whether all candidates or the quick subset were
// measured. A table measured elsewhere, or by another ttile or LLVM, has
// another key and is never read; a record that is damaged, or whose JSON
// does not describe a valid table, is logged, removed and treated as
// absent.
//
// Before the stage has ever run on a machine, the built-in table for its
// register file (DefaultMicrokernels.h) stands in, so that a fresh install
// tunes at once; `ttile-microkernels` measures and stores the real one.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_MICROKERNELTABLE_H
#define TTILE_SEARCH_MICROKERNELTABLE_H

#include "Search/Microkernel.h"
#include "Search/MicrokernelSpace.h"
#include "Search/OfflineStage.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile {
struct HostInfo;
}
namespace ttile::cache {
class RecordStore;
}

namespace ttile::search {

enum class TableOrigin {
  Measured,      ///< The offline stage, every candidate.
  MeasuredQuick, ///< The offline stage, the quick subset.
  BuiltIn,       ///< DefaultMicrokernels.cpp.
};
std::string_view tableOriginName(TableOrigin origin);

struct MicrokernelTable {
  std::string family; ///< MicrokernelFamily::name.
  TableOrigin origin = TableOrigin::BuiltIn;
  std::string key;     ///< The cache key; empty for a built-in table.
  std::string cpuName; ///< Where it was measured.
  std::string date;    ///< UTC, ISO 8601.
  std::string bounds;  ///< UnrollBounds::name.
  double threshold = 0.8;
  double peakFlops = 0;    ///< Measured peak the percentages refer to.
  double stageSeconds = 0; ///< Wall time of the stage.
  int passes = 1;          ///< StageOptions::passes.
  size_t failed = 0;       ///< Candidates left out (logged when measured).
  std::vector<MeasuredMicrokernel> measured; ///< Fastest first.
  std::vector<MicrokernelClass> classes;     ///< Best class first.
};

constexpr std::string_view kMicrokernelRecordKind = "microkernels";
constexpr double kDefaultClassThreshold = 0.8;

/// The cache key of the table measured on this host.
std::string microkernelTableKey(const MicrokernelFamily &family,
                                const UnrollBounds &bounds, double threshold,
                                bool quick);

std::string tableToJson(const MicrokernelTable &table,
                        const MicrokernelFamily &family);
/// The table, if `json` describes a valid one of `family`: well-formed, with
/// factors of the family's arity within sane limits, percentages that are
/// finite and non-negative, classes with ascending combination sizes. Else
/// none, with the reason in `whyNot` if given.
std::optional<MicrokernelTable> tableFromJson(std::string_view json,
                                              const MicrokernelFamily &family,
                                              std::string *whyNot = nullptr);

/// Runs the offline stage on the host's candidates (all, or the quick
/// subset) and forms the classes.
MicrokernelTable measureMicrokernelTable(const MicrokernelFamily &family,
                                         const UnrollBounds &bounds,
                                         double threshold, bool quick,
                                         const StageOptions &options = {});

/// The table stored under `key`, if present and valid; an invalid one is
/// logged and removed.
std::optional<MicrokernelTable> loadTable(const cache::RecordStore &store,
                                          const MicrokernelFamily &family,
                                          const std::string &key);
/// Stores the table under its key; false (logged) when the write fails.
bool storeTable(const cache::RecordStore &store, const MicrokernelTable &table,
                const MicrokernelFamily &family);

/// What to do when no table is stored for this host.
enum class WhenMissing {
  UseBuiltIn,   ///< The built-in table; instant. The default.
  MeasureQuick, ///< Measure the quick subset (seconds) and store it.
  MeasureFull,  ///< Measure every candidate (minutes) and store it.
};

struct TableRequest {
  double threshold = kDefaultClassThreshold;
  /// Where tables are kept; none disables the store.
  std::optional<std::filesystem::path> cacheDirectory;
  WhenMissing whenMissing = WhenMissing::UseBuiltIn;
  StageOptions stage; ///< When the stage runs.
};
/// A request for the default cache directory.
TableRequest defaultTableRequest();

/// The table the search uses on this host: the full table stored for the
/// current key, else the quick one, else what `whenMissing` says.
MicrokernelTable
microkernelTable(const MicrokernelFamily &family,
                 const TableRequest &request = defaultTableRequest());

} // namespace ttile::search

#endif // TTILE_SEARCH_MICROKERNELTABLE_H
