//===- unittests/Measure/ColdOutputsTest.cpp - Outputs out of the caches --===//
//
// ColdOutputs moves each call's output to the next place of its region,
// round robin, leaving the other arguments alone, and leaves an output too
// large for the region where it is.
//
//===----------------------------------------------------------------------===//

#include "Measure/ColdOutputs.h"

#include "Measure/CacheFlush.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>

namespace ttile::measure {
namespace {

TEST(ColdOutputsTest, EveryCallWritesTheNextPlaceRoundRobin) {
  // 1000 bytes take 16 lines, 1024 bytes: 64 places in 64 KiB.
  ColdOutputs outputs(1000, 64 << 10);
  ASSERT_EQ(outputs.places(), 64);
  float output = 0, input = 0, weights = 0;
  const std::array<float *, 3> base{&output, &input, &weights};
  std::set<float *> places;
  float *first = nullptr, *previous = nullptr;
  for (int call = 0; call < 64; ++call) {
    std::span<float *const> arguments = outputs.arguments(base);
    ASSERT_EQ(arguments.size(), 3u);
    EXPECT_EQ(arguments[1], &input);
    EXPECT_EQ(arguments[2], &weights);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arguments[0]) % 64, 0u);
    if (previous)
      EXPECT_EQ(arguments[0] - previous, 1024 / 4);
    if (!first)
      first = arguments[0];
    previous = arguments[0];
    places.insert(arguments[0]);
  }
  EXPECT_EQ(places.size(), 64u);
  EXPECT_EQ(outputs.arguments(base)[0], first); // Round robin.
  EXPECT_EQ(base[0], &output);                  // The caller's untouched.
}

TEST(ColdOutputsTest, AnOutputOverHalfTheRegionStaysWhereItIs) {
  ColdOutputs outputs(40 << 10, 64 << 10);
  EXPECT_EQ(outputs.places(), 0);
  float output = 0, input = 0;
  const std::array<float *, 2> base{&output, &input};
  EXPECT_EQ(outputs.arguments(base)[0], &output);
}

TEST(ColdOutputsTest, TheRegionIsTwiceTheLastLevelCacheByDefault) {
  ColdOutputs outputs(4096);
  EXPECT_EQ(outputs.places(), cacheFlushBytes() / 4096);
  EXPECT_GE(outputs.places(), 2);
}

TEST(ColdOutputsTest, NegativeSizesAreRefused) {
  EXPECT_THROW(ColdOutputs(-1), Error);
  EXPECT_THROW(ColdOutputs(64, -64), Error);
}

} // namespace
} // namespace ttile::measure
