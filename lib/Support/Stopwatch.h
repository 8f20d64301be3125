//===- Support/Stopwatch.h - Wall time since a start ------------*- C++ -*-===//
//
// How long something took, by the steady clock: a compilation, a tuning, a
// tool's construct-and-run. The benchmark protocol's batches and counters
// are Measure/Timer.h's; this is for the times around them.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_STOPWATCH_H
#define TTILE_SUPPORT_STOPWATCH_H

#include <chrono>

namespace ttile {

class Stopwatch {
public:
  using Clock = std::chrono::steady_clock;

  /// Starts now.
  Stopwatch() = default;

  Clock::time_point startedAt() const { return start_; }
  double seconds() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }
  double milliseconds() const { return seconds() * 1e3; }

private:
  Clock::time_point start_ = Clock::now();
};

} // namespace ttile

#endif // TTILE_SUPPORT_STOPWATCH_H
