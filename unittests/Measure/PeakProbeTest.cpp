//===- unittests/Measure/PeakProbeTest.cpp --------------------------------===//
//
// The probes return plausible numbers: positive and within several orders
// of magnitude of any CPU ttile targets. No test asserts a speed.
//
//===----------------------------------------------------------------------===//

#include "Measure/PeakProbe.h"
#include "Measure/MemoryBandwidth.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

namespace ttile::measure {
namespace {

TEST(PeakProbe, IsPositiveAndPlausible) {
  double flops = measuredPeakFlops();
  EXPECT_GT(flops, 1e9);
  EXPECT_LT(flops, 1e13);
  const PeakInfo &peak = measuredPeak();
  EXPECT_EQ(peak.lanes, host().vectorWidth);
  EXPECT_GE(peak.accumulators, 8);
  EXPECT_FALSE(peak.clock.empty());
}

TEST(PeakProbe, IsMeasuredOnce) { EXPECT_EQ(&measuredPeak(), &measuredPeak()); }

TEST(PeakProbe, KernelTimedAgainDoesTheProbesWork) {
  // ttile-bench times the probe again beside every layer.
  const PeakKernel kernel;
  const PeakInfo &peak = measuredPeak();
  EXPECT_EQ(kernel.lanes(), peak.lanes);
  EXPECT_EQ(kernel.accumulators(), peak.accumulators);
  EXPECT_EQ(kernel.iterationsPerCall(), peak.iterationsPerCall);
  EXPECT_DOUBLE_EQ(kernel.flopsPerCall(),
                   2.0 * static_cast<double>(peak.iterationsPerCall) *
                       peak.accumulators * peak.lanes);
  Measurement timing = measure([&] { kernel.run(); }, MeasureOptions());
  EXPECT_GT(kernel.flopsPerCall() / timing.minSeconds, 1e9);
}

TEST(PeakProbe, LoopIsVectorFmas) {
  if (!host().hasAVX2)
    GTEST_SKIP() << "no FMA on this CPU";
  std::string assembly = peakProbeAssembly();
  EXPECT_NE(assembly.find("vfmadd"), std::string::npos) << assembly;
  if (host().hasAVX512)
    EXPECT_NE(assembly.find("zmm"), std::string::npos) << assembly;
}

TEST(MemoryBandwidth, IsPositiveAndPlausible) {
  double bytesPerSecond = measuredBandwidthBytesPerSecond();
  EXPECT_GT(bytesPerSecond, 1e8);
  EXPECT_LT(bytesPerSecond, 1e13);
  // Streaming from memory, not from the last-level cache.
  EXPECT_GT(measuredBandwidth().bufferBytes, host().dataCaches.back().bytes);
}

} // namespace
} // namespace ttile::measure
