//===- ttile-tune/Report.h - What ttile-tune prints -------------*- C++ -*-===//
//
// The outcome of tuning each layer, printed as a table with one row per
// layer and a summary line per network, or as JSON. Percentages are of the
// measured FP32 peak of one thread (measure::measuredPeakFlops) times the
// threads the kernel runs on: the worker count for a scheme with parallel
// loops, else one.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_TUNE_REPORT_H
#define TTILE_TOOLS_TTILE_TUNE_REPORT_H

#include "LayerShape.h"
#include "Networks.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ttile::tools {

struct LayerReport {
  enum class Status {
    Tuned,       ///< info and scheme hold the winner.
    Failed,      ///< problem holds the error.
    Listed,      ///< --list: nothing was tuned.
  };

  NamedLayer layer; ///< For a matmul, its name only.
  /// The matrix product or contraction this row tunes instead of a
  /// convolution.
  std::optional<MatMulParams> matmul;
  std::optional<ContractionParams> contraction;
  /// formatShape(layer.params), "MxNxK,batch", or the einsum.
  std::string shape;
  double mflop = 0;   ///< Work of one run, 0 when not computable.
  Status status = Status::Listed;
  std::string problem;
  Conv2D::TuneInfo info;
  std::string scheme;
  /// The cache was disabled (TTILE_CACHE=off): neither hit nor miss.
  bool cacheOff = false;
  int threads = 1; ///< That the kernel runs on.
  double percentOfPeak = 0;
};

/// A network given by --net, or the layers given by --layer.
struct NetworkReport {
  std::string name;
  std::vector<LayerReport> layers;
};

/// What the figures are relative to, for the JSON.
struct Machine {
  double peakGflops = 0; ///< Of one thread.
  int workers = 1;       ///< The worker count (TTILE_NUM_THREADS).
  std::string host, cache; ///< The cache directory, or "off".
};

/// The table of one network, printed a row at a time as layers finish.
class Table {
public:
  /// Sizes the columns for every layer of `network`. A listing has the
  /// columns up to the work only.
  Table(std::FILE *out, const NetworkReport &network, bool listing);

  void printHeader() const;
  void printRow(const LayerReport &layer) const;
  /// Counts, the FLOP-weighted average percentage of peak, tuning time.
  void printSummary(const NetworkReport &network) const;

private:
  std::FILE *out_;
  bool listing_;
  int nameWidth_, shapeWidth_;
};

nlohmann::json toJson(const std::vector<NetworkReport> &networks,
                      const Machine &machine);

} // namespace ttile::tools

#endif // TTILE_TOOLS_TTILE_TUNE_REPORT_H
