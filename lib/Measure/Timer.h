//===- Measure/Timer.h - Clocks and hardware counters -----------*- C++ -*-===//
//
// What a benchmark reads around a batch of calls:
//
//   SteadyClock  wall time, always; every reported time comes from it.
//   TscClock     the x86 time-stamp counter, when it is invariant (ticks at a
//                fixed rate through frequency changes and sleep states), for
//                cycle counts without PAPI. Those are reference cycles at the
//                TSC rate, not core cycles: under turbo the core runs faster.
//   CounterSet   PAPI's core cycles (PAPI_TOT_CYC) and, when the CPU has
//                them, L1 data misses, L2 misses and resource stalls.
//
// IntervalTimer combines the three. When PAPI is missing, fails to
// initialize or cannot count cycles (virtual machines usually expose no
// counters), measurement falls back to the steady clock and the TSC, and
// one info-level line per process says why.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_TIMER_H
#define TTILE_MEASURE_TIMER_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttile::measure {

/// std::chrono::steady_clock, in seconds from an arbitrary origin.
class SteadyClock {
public:
  static double now();
};

/// The time-stamp counter, usable only where invariant() holds.
class TscClock {
public:
  /// /proc/cpuinfo lists both constant_tsc and nonstop_tsc.
  static bool invariant();
  static uint64_t now();
  /// Calibrated once per process against the steady clock over about
  /// 20 ms. Only meaningful when invariant().
  static double ticksPerSecond();
};

/// PAPI counters of the calling thread. Counters follow one thread: work a
/// kernel hands to other threads is not counted.
class CounterSet {
public:
  /// The calling thread's counters, or nullptr when PAPI is not usable or
  /// has been switched off. The first time that happens in the process,
  /// one info line says why.
  static CounterSet *forThisThread();

  /// PAPI event names; the first is always "PAPI_TOT_CYC".
  const std::vector<std::string> &names() const { return names_; }
  void start();
  /// Counts since start(), one per name.
  std::vector<int64_t> stop();

  ~CounterSet();
  CounterSet(const CounterSet &) = delete;
  CounterSet &operator=(const CounterSet &) = delete;

private:
  CounterSet(int eventSet, std::vector<std::string> names)
      : eventSet_(eventSet), names_(std::move(names)) {}
  /// Initializes PAPI for the calling thread; nullptr, with the reason,
  /// when it cannot count cycles.
  static std::unique_ptr<CounterSet> create(std::string &reason);

  int eventSet_;
  std::vector<std::string> names_;
  bool running_ = false;
};

/// Switches PAPI off for the rest of the process, as TTILE_NO_PAPI=1 does
/// at startup; tests use it to exercise the fallback. IntervalTimers made
/// afterwards use no counters.
void disableHardwareCounters();

/// What one timed interval read.
struct TimerReading {
  double seconds = 0;
  /// Core cycles from PAPI, else TSC ticks when the TSC is invariant.
  std::optional<uint64_t> cycles;
  /// Extra PAPI counters, in the order of CounterSet::names() (after
  /// PAPI_TOT_CYC); empty without PAPI.
  std::vector<int64_t> counters;
};

/// Times intervals on the calling thread with the best clocks it has.
class IntervalTimer {
public:
  IntervalTimer();
  void start();
  TimerReading stop();

  /// Names of TimerReading::counters, e.g. {"PAPI_L1_DCM"}.
  std::vector<std::string> counterNames() const;

private:
  CounterSet *counters_;
  bool useTsc_;
  double startSeconds_ = 0;
  uint64_t startTicks_ = 0;
};

/// The clocks measurements use on this thread, in words, for the header
/// of a benchmark report: "steady clock; cycles from PAPI (PAPI_TOT_CYC,
/// PAPI_L1_DCM)", "steady clock; cycles from the invariant TSC (2.45 GHz)"
/// or "steady clock".
std::string clockDescription();

} // namespace ttile::measure

#endif // TTILE_MEASURE_TIMER_H
