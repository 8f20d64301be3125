//===- unittests/Measure/TimerTest.cpp ------------------------------------===//

#include "Measure/Timer.h"
#include "Measure/Benchmark.h"

#include <gtest/gtest.h>

namespace ttile::measure {
namespace {

/// Busy-waits, so that the thread keeps its CPU while it is timed.
void spin(double seconds) {
  double start = SteadyClock::now();
  while (SteadyClock::now() - start < seconds) {
  }
}

TEST(Timer, SteadyClockIsMonotonic) {
  double previous = SteadyClock::now();
  for (int i = 0; i < 1000; ++i) {
    double now = SteadyClock::now();
    EXPECT_GE(now, previous);
    previous = now;
  }
  spin(0.001);
  EXPECT_GT(SteadyClock::now(), previous);
}

TEST(Timer, InvariantTscAgreesWithTheSteadyClock) {
  if (!TscClock::invariant())
    GTEST_SKIP() << "no invariant TSC on this CPU";
  EXPECT_GT(TscClock::ticksPerSecond(), 1e8);
  // Loose, and three tries: the machine is shared, and a preemption
  // between the two clocks' reads adds to one interval only.
  double ratio = 0;
  for (int attempt = 0; attempt < 3 && !(ratio > 0.5 && ratio < 2);
       ++attempt) {
    double startSeconds = SteadyClock::now();
    uint64_t startTicks = TscClock::now();
    spin(0.01);
    double tscSeconds = static_cast<double>(TscClock::now() - startTicks) /
                        TscClock::ticksPerSecond();
    ratio = tscSeconds / (SteadyClock::now() - startSeconds);
  }
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 2);
}

TEST(Timer, IntervalTimerReadsElapsedTime) {
  IntervalTimer timer;
  timer.start();
  spin(0.002);
  TimerReading reading = timer.stop();
  EXPECT_GE(reading.seconds, 0.002);
  EXPECT_EQ(reading.counters.size(), timer.counterNames().size());
  EXPECT_FALSE(clockDescription().empty());
}

// Switching PAPI off lasts for the rest of the process; harmless, since no
// test asserts counter values.
TEST(Timer, FallbackWorksWithoutPapi) {
  disableHardwareCounters();
  EXPECT_EQ(CounterSet::forThisThread(), nullptr);
  IntervalTimer timer;
  EXPECT_TRUE(timer.counterNames().empty());
  EXPECT_EQ(clockDescription().find("PAPI"), std::string::npos);

  volatile int sink = 0;
  MeasureOptions options;
  options.minSeconds = 0.005;
  Measurement measurement = measure([&] { sink = sink + 1; }, options);
  EXPECT_GT(measurement.medianSeconds, 0);
  EXPECT_TRUE(measurement.counters.empty());
  EXPECT_EQ(measurement.cyclesPerCall.has_value(), TscClock::invariant());
}

} // namespace
} // namespace ttile::measure
