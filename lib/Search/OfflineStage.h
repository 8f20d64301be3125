//===- Search/OfflineStage.h - Measure microkernels, classes ----*- C++ -*-===//
//
// The offline stage of the paper (4.1): measure every candidate microkernel
// in isolation, rank them by percentage of the measured peak, and keep the
// classes of fast microkernels that differ only along the combination
// dimension, from which the search draws its Lambda pairs.
//
// Compiling and checking a candidate takes about 20 ms, timing it about
// 30 ms, so candidates are compiled and checked on worker threads, a few
// ahead of the calling thread, which only times them: the stage then lasts
// about as long as the timing alone. A microkernel works from registers and
// its core's caches, so a compilation on another core does not disturb its
// timing beyond the machine's noise (docs/Microkernels.md compares both).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_OFFLINESTAGE_H
#define TTILE_SEARCH_OFFLINESTAGE_H

#include "Search/Microkernel.h"
#include "Search/MicrokernelBench.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace ttile::search {

/// Where the stage stands, after each candidate.
struct StageProgress {
  size_t done = 0;   ///< Candidates measured or failed, over all passes.
  size_t total = 0;  ///< Candidates x passes.
  size_t failed = 0; ///< Distinct candidates that did not compile or
                     ///< computed a wrong result.
  double elapsedSeconds = 0;
  double etaSeconds = 0; ///< At the average pace so far.
  std::optional<MeasuredMicrokernel> best;
};

struct StageOptions {
  MicrokernelBenchOptions bench;
  /// Threads compiling ahead of the timing thread; 0 compiles each
  /// candidate on the calling thread, just before it is timed.
  int compileThreads = 1;
  /// Compiled candidates waiting to be timed, at most: bounds the memory
  /// and keeps the workers from finishing far ahead.
  size_t compileAhead = 4;
  /// Passes over all the candidates, minutes apart; a candidate's
  /// percentage is the median of its passes. The noise of a shared machine
  /// drifts slowly, so repeating a measurement at once would not remove it.
  int passes = 1;
  /// The peak the percentages refer to; measured once when absent.
  std::optional<double> peakFlops;
  /// Called on the calling thread after each candidate.
  std::function<void(const StageProgress &)> progress;
};

struct StageResult {
  /// The candidates that ran correctly in every pass, fastest first.
  std::vector<MeasuredMicrokernel> measured;
  size_t failed = 0;
  double wallSeconds = 0;
  double peakFlops = 0;
};

/// Measures every candidate. A candidate that does not compile or computes
/// a wrong result is logged as an error and left out.
StageResult runOfflineStage(const MicrokernelFamily &family,
                            const std::vector<Microkernel> &candidates,
                            const StageOptions &options = {});

/// The classes of paper 4.1: the microkernels at or above `threshold` times
/// the best one's percentage (of the best with the same window sizes, for
/// a load-bound family), grouped by their factors on every dimension but
/// the combination one. Best class first.
std::vector<MicrokernelClass>
formClasses(const MicrokernelFamily &family,
            const std::vector<MeasuredMicrokernel> &measured, double threshold);

} // namespace ttile::search

#endif // TTILE_SEARCH_OFFLINESTAGE_H
