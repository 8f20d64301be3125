//===- ttile-bench/Compare.h - ttile and oneDNN on one layer ----*- C++ -*-===//
//
// `ttile-bench compare` runs each layer through ttile and then through
// oneDNN in the same process, on the same data, timed by the same protocol
// (Measure/Benchmark.h, warm caches), and checks that both compute the same
// output. ttile's figure is Conv2D::run() after Conv2D::tune(): a cached
// winner when there is one, else tuned now with --trials candidates. Both
// are set up first, then timed in turn --rounds times; each keeps its
// fastest median. Each round also times the peak probe
// (Measure/PeakProbe.h), and both libraries' % of peak is of the fastest
// it ran in the layer's rounds: the VM's speed drifts by 5-10% over
// minutes, and a peak measured once at the start made every layer of a
// slow spell look further from it than it was.
//
// A layer's epilogue (Conv2DParams: activation, residual) runs in both:
// in ttile's kernel, and as oneDNN's post-ops (OneDnnConv.h). Every layer
// has a bias. The residual is added in place by both, as oneDNN's sum
// post-op does: it is written into each library's output before the runs,
// and again before the run whose output is checked.
//
// Layouts (--layout):
//   any   each library at its best: ttile on its natural layout (NHWC),
//         oneDNN on the formats it picks, its reorders outside the timing;
//   nhwc  both on NHWC data: oneDNN's reorders from and to it are timed;
//   nchw  likewise on NCHW data.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_COMPARE_H
#define TTILE_TOOLS_TTILE_BENCH_COMPARE_H

#include "Networks.h"

#include "Measure/Benchmark.h"
#include "Measure/PeakProbe.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttile::bench {

enum class LayoutMode { Any, NHWC, NCHW };

/// "any", "nhwc", "nchw".
const char *layoutModeName(LayoutMode mode);

struct CompareOptions {
  LayoutMode layout = LayoutMode::Any;
  int threads = 1;
  int trials = 20; ///< For layers ttile has not tuned before.
  int rounds = 3;  ///< Alternate measurements of each library.
  /// ttile's weights laid out once (Conv2DParams::constantWeights), as
  /// oneDNN's are reordered once into its blocked format; else given to
  /// every run().
  bool constantWeights = true;
  uint64_t seed = 1;
  bool withOneDnn = true;
  /// The buffers of the user layout (input, weights, bias, residual, and
  /// ttile's output) start this many bytes past a 64-byte line, as an
  /// application's std::vector of floats does (16 for large ones); 0: on
  /// the line. A multiple of 4 below 64. oneDNN reads the same offset
  /// buffers, and where it computes in the user's format, writes its
  /// output at the same offset too (OneDnnConv.h); its blocked formats are
  /// memory it allocates itself, as in an application
  /// (docs/benchmarks/alignment.md).
  int offsetBytes = 0;
  measure::MeasureOptions measure;
};

/// What one library did with one layer.
struct Outcome {
  enum class Status {
    Measured,    ///< The figures below hold.
    Failed,      ///< detail is the error.
    NotRun,      ///< oneDNN without oneDNN.
  };
  Status status = Status::NotRun;
  /// Measured: ttile's scheme, or oneDNN's implementation name.
  std::string detail;
  double seconds = 0; ///< Per call: the fastest of the rounds' medians.
  double gflops = 0;
  /// Of the peak measured with the layer, times the threads used.
  double percentOfPeak = 0;

  bool measured() const { return status == Status::Measured; }
};

struct LayerComparison {
  tools::NamedLayer layer;
  double mflop = 0; ///< Of one run.
  double usefulMflop = 0; ///< Of those, the taps that read no padding.
  /// The bytes one run must move at least: input, weights, bias, residual,
  /// output.
  double megabytes = 0;
  /// The peak of one thread, measured in the same rounds as the libraries.
  double peakGflops = 0;
  Outcome ttile, onednn;
  /// With both measured: the largest difference between their outputs
  /// divided by the tolerance; the outputs agree when it is at most 1.
  std::optional<double> errorRatio;

  bool disagree() const { return errorRatio && *errorRatio > 1; }
  /// ttile's speed over oneDNN's, with both measured.
  std::optional<double> speedup() const;
};

/// Runs `layer` through both libraries. Errors of either become its
/// Outcome; only a failure to allocate the data escapes.
LayerComparison compareLayer(const tools::NamedLayer &layer,
                             const CompareOptions &options,
                             const measure::PeakKernel &peak);

/// Runs variants of one shape (with and without an epilogue, say) through
/// both libraries, all of them timed in the same rounds: the figures of
/// two variants differ by what the variants do, not by when the machine
/// was slower. Every variant must have the same work (workMflop).
std::vector<LayerComparison>
compareVariants(const std::vector<tools::NamedLayer> &variants,
                const CompareOptions &options,
                const measure::PeakKernel &peak);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_COMPARE_H
