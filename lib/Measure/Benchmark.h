//===- Measure/Benchmark.h - The measurement protocol -----------*- C++ -*-===//
//
// How ttile times a kernel, for the autotuner and for every figure it
// reports (paper 5, thesis 4.6). The machine is shared and noisy, so:
//
//  1. Warm up: a few calls, so that code and data are resident (hot cache)
//     and the CPU has left its idle state.
//  2. Calibrate: double the number of calls in a batch until one batch
//     lasts at least minSeconds / repetitions. Timer overhead and clock
//     resolution then vanish against the batch, however short one call is.
//  3. Repeat: time `repetitions` batches, so the timed part lasts at least
//     minSeconds in all (less than twice that, as batches grow by
//     doubling), and report per-call times: the median, the
//     extremes, and the spread (p75 - p25) / median. The interquartile
//     spread ignores a single batch hit by an interrupt, which max - min
//     would not.
//  4. Re-measure: while the spread exceeds maxSpread, run step 3 again (at
//     most maxRemeasures times) and keep the run with the lowest spread.
//
// With the defaults (50 ms, 7 batches) a candidate costs about 0.1 s
// including calibration, so tuning 20 candidates takes a few seconds.
//
// Alternately: measureAlternately() times several kernels against each
// other. Each is warmed up and calibrated as above, then every repetition
// is a round that times one batch of each kernel in turn, after one
// untimed call (the batch before was another kernel's). On a shared
// machine whose speed drifts by 5-10% over seconds, measuring one kernel
// after the other compares the moments as much as the kernels; within a
// round, batches milliseconds apart see the same machine.
//
// Single calls: a batch is one call, uncalibrated, for a call long enough
// to be timed alone (the tuner's slices of 20 ms: calibrating one to
// minSeconds ran 7 calls before the 4 it timed).
//
// Cold cache: every call is preceded by flushCaches() and timed on its
// own, the flush excluded; a batch is a single call. The minimum time does
// not apply there: a flush costs milliseconds, and a call from cold caches
// is long enough to time alone.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_BENCHMARK_H
#define TTILE_MEASURE_BENCHMARK_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ttile::measure {

struct MeasureOptions {
  double minSeconds = 0.05; ///< Timed seconds over all repetitions.
  int repetitions = 7;      ///< Batches whose median is reported.
  int warmupRuns = 2;       ///< Untimed calls before calibration.
  bool coldCache = false;   ///< Flush the caches before every call.
  /// A batch is one call, not calibrated: for calls long enough to be
  /// timed alone, where calibrating would run several to learn that.
  bool singleCalls = false;
  double maxSpread = 0.05;  ///< Re-measure above this relative spread.
  int maxRemeasures = 2;    ///< At most this many extra measurements.
};

/// Times are per call, in seconds.
struct Measurement {
  double medianSeconds = 0;
  double minSeconds = 0;
  double maxSeconds = 0;
  /// (p75 - p25) / median over the repetitions' per-call times,
  /// interpolating between order statistics; 0 for one repetition.
  double spread = 0;
  int64_t callsPerRepetition = 0;
  int repetitions = 0;
  /// Extra measurements taken because the spread was too large; the one
  /// reported is the one with the lowest spread.
  int remeasures = 0;
  /// Median cycles per call: core cycles from PAPI, else TSC ticks (see
  /// clockDescription()); empty without either.
  std::optional<uint64_t> cyclesPerCall;
  /// Median PAPI counts per call other than cycles, by event name.
  std::map<std::string, double> counters;
};

/// Runs `run` under the protocol above on the calling thread. Throws
/// ttile::Error for options out of range; exceptions from `run` propagate.
Measurement measure(const std::function<void()> &run,
                    const MeasureOptions &options = {});

/// Measures every run of `runs` in rounds (see above): one Measurement per
/// run, in order, over `repetitions` rounds. There is no re-measuring: a
/// noisy round hits every run alike. Throws as measure() does.
std::vector<Measurement>
measureAlternately(const std::vector<std::function<void()>> &runs,
                   const MeasureOptions &options = {});

/// About how long measureAlternately(runs, options) takes, for runs whose
/// calls last `callSeconds` each: warm-up, calibration and rounds, as the
/// protocol above spends them on calls of steady length. For a caller that
/// must fit the measurement into a time limit (the tuner's seconds).
double measureAlternatelySeconds(const std::vector<double> &callSeconds,
                                 const MeasureOptions &options = {});

} // namespace ttile::measure

#endif // TTILE_MEASURE_BENCHMARK_H
