//===- ttile-microkernels.cpp - Run the offline stage ---------------------===//
//
//   ttile-microkernels [--family conv2d|matmul|depthwise|planar|dot|lanewise]
//                      [--quick] [--threshold X] [--json FILE] [--no-store]
//                      [--compile-threads N] [--passes N] [--min-seconds S]
//                      [--list]
//
// Measures every candidate microkernel of the family on this machine (paper
// 4.1), with a progress bar on stderr, prints the classes, and stores the
// table in the cache directory where the search finds it. --quick measures
// only the candidates unrolled along the vectorized and combination
// dimensions (seconds instead of minutes); --json also writes the table for
// scripts/plot-microkernels; --list prints the candidates without measuring.
// Exit status: 0 on success, 1 when no candidate runs correctly or the JSON
// cannot be written, 2 on usage errors.
//
//===----------------------------------------------------------------------===//

#include "ToolMain.h"

#include "Cache/RecordStore.h"
#include "Scheme/SchemeParser.h"
#include "Search/MicrokernelSpace.h"
#include "Search/MicrokernelTable.h"
#include "Support/Host.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace ttile;
using namespace ttile::search;

namespace {


struct Options {
  std::string family = "conv2d";
  bool quick = false;
  double threshold = kDefaultClassThreshold;
  std::string json;
  bool noStore = false;
  int compileThreads = 1;
  int passes = 1;
  double minSeconds = offlineMeasureOptions().minSeconds;
  bool list = false;
};

std::string duration(double seconds) {
  auto whole = static_cast<long>(seconds + 0.5);
  char text[32];
  if (whole >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", whole / 60, whole % 60);
  else
    std::snprintf(text, sizeof text, "%lds", whole);
  return text;
}

/// On a terminal, one line redrawn after every candidate; otherwise (a log
/// file, CI) a line every 10% of the candidates.
class ProgressReporter {
public:
  explicit ProgressReporter(const MicrokernelFamily &family)
      : family_(family), terminal_(::isatty(STDERR_FILENO)) {}

  void operator()(const StageProgress &progress) {
    std::string best = progress.best
                           ? formatPercent(progress.best->percentOfPeak) + " " +
                                 progress.best->kernel.str(family_)
                           : "none yet";
    std::string failed =
        progress.failed ? ", " + std::to_string(progress.failed) + " failed"
                        : "";
    if (terminal_) {
      constexpr size_t width = 30;
      size_t filled = width * progress.done / progress.total;
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  ETA %s  best %s%s\033[K",
                   std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), progress.done,
                   progress.total, duration(progress.etaSeconds).c_str(),
                   best.c_str(), failed.c_str());
      if (progress.done == progress.total)
        std::fputc('\n', stderr);
    } else if (progress.done * 10 / progress.total !=
                   (progress.done - 1) * 10 / progress.total ||
               progress.done == progress.total) {
      std::fprintf(stderr,
                   "ttile-microkernels: %zu/%zu, %s elapsed, ETA %s, "
                   "best %s%s\n",
                   progress.done, progress.total,
                   duration(progress.elapsedSeconds).c_str(),
                   duration(progress.etaSeconds).c_str(), best.c_str(),
                   failed.c_str());
    }
  }

private:
  static std::string formatPercent(double percent) {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f%%", percent);
    return text;
  }

  const MicrokernelFamily &family_;
  bool terminal_;
};

/// "7-14" or "3,5-7,9".
std::string sizeRanges(const std::vector<int64_t> &sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size();) {
    size_t end = i;
    while (end + 1 < sizes.size() && sizes[end + 1] == sizes[end] + 1)
      ++end;
    text += (text.empty() ? "" : ",") + std::to_string(sizes[i]);
    if (end > i)
      text += "-" + std::to_string(sizes[end]);
    i = end + 1;
  }
  return text;
}

void printSummary(const MicrokernelTable &table,
                  const MicrokernelFamily &family) {
  size_t candidates = table.measured.size() + table.failed;
  size_t aboveThreshold = 0;
  for (const MeasuredMicrokernel &entry : table.measured)
    if (entry.percentOfPeak >=
        table.threshold * table.measured.front().percentOfPeak)
      ++aboveThreshold;
  std::printf("%zu %s candidates (bounds %s) measured in %s (%d pass%s) on "
              "%s, peak %.1f GFLOP/s; %zu failed\n",
              candidates, family.name.c_str(), table.bounds.c_str(),
              duration(table.stageSeconds).c_str(), table.passes,
              table.passes == 1 ? "" : "es", table.cpuName.c_str(),
              table.peakFlops * 1e-9, table.failed);
  if (!table.measured.empty())
    std::printf("best: %.1f%% of peak, %s; %zu at or above %g x best\n",
                table.measured.front().percentOfPeak,
                table.measured.front().kernel.str(family).c_str(),
                aboveThreshold, table.threshold);
  std::printf("%zu classes:\n", table.classes.size());
  for (const MicrokernelClass &group : table.classes)
    std::printf(
        "  %-40s %s %-16s best %.1f%%\n",
        scheme::printScheme(scheme::Scheme{group.shape.atoms(family, true)})
            .c_str(),
        family.combinationDim.c_str(),
        sizeRanges(group.combinationSizes).c_str(), group.bestPercentOfPeak);
}

/// Writes the table where the options say and adds a line per place to
/// `report`; false (reported) when the JSON file cannot be written.
bool saveTable(const MicrokernelTable &table, const MicrokernelFamily &family,
               const Options &options, std::vector<std::string> &report) {
  if (!options.json.empty()) {
    std::ofstream file(options.json);
    file << tableToJson(table, family) << "\n";
    if (!file) {
      std::fprintf(stderr, "ttile-microkernels: cannot write %s\n",
                   options.json.c_str());
      return false;
    }
    report.push_back("table written to " + options.json);
  }
  if (options.noStore)
    return true;
  std::optional<std::filesystem::path> directory =
      cache::defaultCacheDirectory();
  if (!directory) {
    report.push_back("no cache directory: table not stored");
    return true;
  }
  cache::RecordStore store(*directory);
  if (storeTable(store, table, family))
    report.push_back("table stored in " +
                     store.pathFor(kMicrokernelRecordKind, table.key).string());
  return true;
}

int run(const Options &options) {
  const MicrokernelFamily &family = *MicrokernelFamily::find(options.family);
  const UnrollBounds &bounds = UnrollBounds::forHost(host());
  if (options.list) {
    std::vector<Microkernel> candidates = enumerate(family, bounds);
    if (options.quick)
      candidates = quickSubset(family, candidates);
    for (const Microkernel &kernel : candidates)
      std::printf("%s\n", kernel.str(family).c_str());
    return 0;
  }

  std::fprintf(stderr, "%s\n", host().summary().c_str());
  StageOptions stage;
  stage.compileThreads = options.compileThreads;
  stage.passes = options.passes;
  stage.bench.measure.minSeconds = options.minSeconds;
  stage.progress = ProgressReporter(family);
  MicrokernelTable table = measureMicrokernelTable(
      family, bounds, options.threshold, options.quick, stage);
  if (table.classes.empty()) {
    std::fprintf(stderr, "ttile-microkernels: no candidate ran correctly\n");
    return tools::kExitFailure;
  }
  // Saved before the long listing, which a closed pipe may cut short.
  std::vector<std::string> report;
  bool saved = saveTable(table, family, options, report);
  printSummary(table, family);
  for (const std::string &line : report)
    std::printf("%s\n", line.c_str());
  return saved ? 0 : tools::kExitFailure;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Measure the candidate microkernels of this machine and store "
               "their classes for the search (the offline stage).",
               "ttile-microkernels");
  Options options;
  std::vector<std::string> familyNames;
  for (const MicrokernelFamily *family : MicrokernelFamily::all())
    familyNames.push_back(family->name);
  app.add_option("--family", options.family, "the operator")
      ->check(CLI::IsMember(familyNames));
  app.add_flag("--quick", options.quick,
               "measure only the candidates unrolled along the vectorized and "
               "combination dimensions");
  app.add_option("--threshold", options.threshold,
                 "class members run at least this fraction of the best")
      ->check(CLI::Range(0.01, 1.0));
  app.add_option("--json", options.json, "also write the table to FILE");
  app.add_flag("--no-store", options.noStore,
               "do not store the table in the cache directory");
  app.add_option("--compile-threads", options.compileThreads,
                 "threads compiling ahead of the timing thread (0: none)")
      ->check(CLI::Range(0, 64));
  app.add_option("--passes", options.passes,
                 "measure every candidate in N passes and keep its median")
      ->check(CLI::Range(1, 9));
  app.add_option("--min-seconds", options.minSeconds,
                 "timed seconds per candidate, over all batches")
      ->check(CLI::Range(1e-4, 10.0));
  app.add_flag("--list", options.list,
               "print the candidates, one scheme a line, and exit");
  return tools::runTool(app, argc, argv, [&] { return run(options); });
}
