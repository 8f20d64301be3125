//===- Measure/Benchmark.cpp - The measurement protocol -------------------===//

#include "Measure/Benchmark.h"

#include "Measure/CacheFlush.h"
#include "Measure/Timer.h"
#include "Support/Logging.h"
#include "Support/Statistics.h"
#include "ttile/Error.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ttile::measure {
namespace {

void checkOptions(const MeasureOptions &options) {
  auto require = [](bool holds, const char *rule) {
    if (!holds)
      throw Error(std::string("invalid measure options: ") + rule);
  };
  require(std::isfinite(options.minSeconds) && options.minSeconds > 0,
          "minSeconds must be positive");
  require(options.repetitions >= 1, "repetitions must be at least 1");
  require(options.warmupRuns >= 0, "warmupRuns must not be negative");
  require(options.maxSpread >= 0, "maxSpread must not be negative");
  require(options.maxRemeasures >= 0, "maxRemeasures must not be negative");
}

/// Times `calls` calls as one batch, or, for a cold cache, one flushed call.
TimerReading timeBatch(const std::function<void()> &run, int64_t calls,
                       bool coldCache, IntervalTimer &timer) {
  if (coldCache)
    flushCaches();
  timer.start();
  for (int64_t call = 0; call < calls; ++call)
    run();
  return timer.stop();
}

/// The smallest power of two of calls whose batch lasts `targetSeconds`.
int64_t calibrateCalls(const std::function<void()> &run, double targetSeconds,
                       IntervalTimer &timer) {
  int64_t calls = 1;
  while (timeBatch(run, calls, false, timer).seconds < targetSeconds)
    calls *= 2;
  return calls;
}

Measurement summarize(const std::vector<TimerReading> &readings, int64_t calls,
                      const std::vector<std::string> &names) {
  auto perCall = [calls](double total) {
    return total / static_cast<double>(calls);
  };
  std::vector<double> seconds;
  for (const TimerReading &reading : readings)
    seconds.push_back(perCall(reading.seconds));
  std::sort(seconds.begin(), seconds.end());

  Measurement result;
  result.medianSeconds = quantile(seconds, 0.5);
  result.minSeconds = seconds.front();
  result.maxSeconds = seconds.back();
  result.spread = result.medianSeconds > 0
                      ? (quantile(seconds, 0.75) - quantile(seconds, 0.25)) /
                            result.medianSeconds
                      : 0;
  result.callsPerRepetition = calls;
  result.repetitions = static_cast<int>(readings.size());

  // The timer gives cycles for every reading or for none.
  if (readings.front().cycles) {
    std::vector<double> cycles;
    for (const TimerReading &reading : readings)
      cycles.push_back(perCall(static_cast<double>(*reading.cycles)));
    result.cyclesPerCall = static_cast<uint64_t>(std::llround(median(cycles)));
  }
  for (size_t counter = 0; counter < names.size(); ++counter) {
    std::vector<double> counts;
    for (const TimerReading &reading : readings)
      counts.push_back(perCall(static_cast<double>(reading.counters[counter])));
    result.counters[names[counter]] = median(counts);
  }
  return result;
}

/// Whether a batch is calibrated to minSeconds / repetitions: not for
/// cold-cache or single calls, whose batch is one call.
bool calibratesBatches(const MeasureOptions &options) {
  return !options.coldCache && !options.singleCalls;
}

/// Runs `run`'s warm-up calls, then returns the calls of its batch.
int64_t warmUpAndSizeBatch(const std::function<void()> &run,
                           const MeasureOptions &options,
                           IntervalTimer &timer) {
  for (int warmup = 0; warmup < options.warmupRuns; ++warmup)
    run();
  return calibratesBatches(options)
             ? calibrateCalls(run, options.minSeconds / options.repetitions,
                              timer)
             : 1;
}

Measurement measureOnce(const std::function<void()> &run, int64_t calls,
                        const MeasureOptions &options, IntervalTimer &timer) {
  std::vector<TimerReading> readings;
  for (int repetition = 0; repetition < options.repetitions; ++repetition)
    readings.push_back(timeBatch(run, calls, options.coldCache, timer));
  return summarize(readings, calls, timer.counterNames());
}

} // namespace

Measurement measure(const std::function<void()> &run,
                    const MeasureOptions &options) {
  checkOptions(options);
  IntervalTimer timer;
  int64_t calls = warmUpAndSizeBatch(run, options, timer);

  Measurement best = measureOnce(run, calls, options, timer);
  for (int remeasure = 1;
       remeasure <= options.maxRemeasures && best.spread > options.maxSpread;
       ++remeasure) {
    log().debug("measure: spread {:.1f}% above {:.1f}%, measuring again "
                "({}/{})",
                100 * best.spread, 100 * options.maxSpread, remeasure,
                options.maxRemeasures);
    Measurement next = measureOnce(run, calls, options, timer);
    if (next.spread < best.spread)
      best = std::move(next);
    best.remeasures = remeasure;
  }
  return best;
}

std::vector<Measurement>
measureAlternately(const std::vector<std::function<void()>> &runs,
                   const MeasureOptions &options) {
  checkOptions(options);
  IntervalTimer timer;
  std::vector<int64_t> calls;
  for (const std::function<void()> &run : runs)
    calls.push_back(warmUpAndSizeBatch(run, options, timer));
  std::vector<std::vector<TimerReading>> readings(runs.size());
  for (int round = 0; round < options.repetitions; ++round)
    for (size_t i = 0; i < runs.size(); ++i) {
      // A batch of one call is as long as the whole batch of a short kernel:
      // an untimed call before it would double the cost of measuring it.
      if (!options.coldCache && calls[i] > 1)
        runs[i]();
      readings[i].push_back(
          timeBatch(runs[i], calls[i], options.coldCache, timer));
    }
  std::vector<Measurement> measurements;
  for (size_t i = 0; i < runs.size(); ++i)
    measurements.push_back(
        summarize(readings[i], calls[i], timer.counterNames()));
  return measurements;
}

double measureAlternatelySeconds(const std::vector<double> &callSeconds,
                                 const MeasureOptions &options) {
  checkOptions(options);
  const double batchTarget = options.minSeconds / options.repetitions;
  double total = 0;
  for (double call : callSeconds) {
    if (!(call > 0)) // Costs nothing, and would never fill a batch.
      continue;
    // calibrateCalls() doubles a batch until it lasts batchTarget: batches
    // of 1, 2, ..., calls, that is 2 * calls - 1 calls in all.
    const bool calibrated = calibratesBatches(options);
    int64_t calls = 1;
    while (calibrated && static_cast<double>(calls) * call < batchTarget)
      calls *= 2;
    double calibration = calibrated ? 2.0 * calls - 1 : 0;
    // Each round: a batch, after one untimed call when it holds several.
    double round = static_cast<double>(calls) +
                   (!options.coldCache && calls > 1 ? 1 : 0);
    total += call * (options.warmupRuns + calibration +
                     options.repetitions * round);
  }
  return total;
}

} // namespace ttile::measure
