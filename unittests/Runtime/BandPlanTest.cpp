//===- unittests/Runtime/BandPlanTest.cpp - Bands of a Conv2DPair --------===//
//
// BandPlan on random geometries, by simulation: the rows each band's window
// holds after its step (kept from the previous window, computed, or zeros)
// must be exactly the intermediate's rows it reads, zeros outside it; the
// groups must cover every band once; the first convolution's row counts,
// and their calls, must be those the steps run.
//
//===----------------------------------------------------------------------===//

#include "Runtime/BandPlan.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ttile::runtime {
namespace {

/// What a window row holds: an intermediate row, or a zero row (-1).
constexpr int64_t kZero = -1;

TEST(BandPlanTest, EveryWindowHoldsTheRowsItsBandReads) {
  std::mt19937_64 random(7);
  auto between = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  for (int trial = 0; trial < 2000; ++trial) {
    BandGeometry g;
    g.images = between(1, 3);
    g.intermediateRows = between(1, 40);
    g.kernelRows = between(1, 5);
    g.stride = between(1, 4);
    g.dilation = between(1, 3);
    g.padTop = between(0, 5);
    const int64_t padBottom = between(0, 5);
    const int64_t reach = (g.kernelRows - 1) * g.dilation + 1;
    if (g.intermediateRows + g.padTop + padBottom < reach)
      continue;
    g.outputRows =
        (g.intermediateRows + g.padTop + padBottom - reach) / g.stride + 1;
    const int64_t tasks = between(1, 4);
    const int64_t bandRows =
        BandPlan::chooseBandRows(g, between(1, 64), between(1, 2000), tasks);
    ASSERT_EQ(g.outputRows % bandRows, 0);
    const BandPlan plan(g, bandRows, tasks);
    SCOPED_TRACE("trial " + std::to_string(trial));
    int64_t covered = 0;
    std::map<int64_t, int64_t> calls;
    for (int64_t task = 0; task < plan.tasks(); ++task) {
      const int64_t begin = plan.groupBegin(task);
      std::vector<int64_t> window(size_t(plan.window()), -2);
      for (int64_t index = begin; index < plan.groupBegin(task + 1); ++index) {
        const BandStep band = plan.step(index, begin);
        ++covered;
        if (band.keepsOverlap)
          std::copy(window.begin() + plan.steadyRows(), window.end(),
                    window.begin());
        for (int64_t row = band.firstNew; row < plan.window(); ++row) {
          const bool computed =
              row >= band.computedBegin && row < band.computedEnd;
          window[size_t(row)] = computed ? band.top + row : kZero;
        }
        for (int64_t rows = band.computedEnd - band.computedBegin; rows > 0;
             rows -= plan.steadyRows())
          ++calls[std::min(rows, plan.steadyRows())];
        EXPECT_EQ(band.top, band.band * bandRows * g.stride - g.padTop);
        for (int64_t row = 0; row < plan.window(); ++row) {
          const int64_t read = band.top + row;
          const bool inside = read >= 0 && read < g.intermediateRows;
          ASSERT_EQ(window[size_t(row)], inside ? read : kZero)
              << "band " << index << " row " << row;
        }
      }
    }
    EXPECT_EQ(covered, plan.bands());
    EXPECT_EQ(plan.bands(), g.images * g.outputRows / bandRows);
    EXPECT_EQ(calls, plan.firstCalls());
  }
}

TEST(BandPlanTest, ChoosesTheLargestBandThatFitsWithOneForEachTask) {
  // MobileNet v2's expansion to 96 channels at 112x112, then its 3x3
  // stride 2: 43008 bytes a row of the intermediate, half a 1 MB L2.
  BandGeometry g{1, 112, 56, 3, 2, 1, 1};
  EXPECT_EQ(BandPlan::chooseBandRows(g, 43008, 512 << 10, 1), 4);
  EXPECT_EQ(BandPlan::chooseBandRows(g, 43008, 1 << 30, 1), 56);
  EXPECT_EQ(BandPlan::chooseBandRows(g, 43008, 1 << 30, 2), 28);
  EXPECT_EQ(BandPlan::chooseBandRows(g, 43008, 1, 1), 1);
}

TEST(BandPlanTest, RefusesMoreBandsThanItPlansQuickly) {
  // A 1-row image 2^17 rows high, padded: 2^17 bands of one row.
  BandGeometry g{1, 1, int64_t{1} << 17, 1, 1, 1, 0};
  try {
    BandPlan plan(g, 1, 1);
    ADD_FAILURE() << "planned " << plan.bands() << " bands";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("at most 65536"),
              std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace ttile::runtime
