//===- unittests/Runtime/SweepTest.cpp - Random shapes, every attribute ---===//
//
// Where the conformance cases change one attribute at a time, this sweep
// combines them: seeded random shapes with batches, odd sizes, asymmetric
// padding, strides, dilations, groups, depthwise layers with and without a
// multiplier, bias, every activation, a residual (also in place, in the
// output buffer), constant weights and both layouts, each checked against
// the naive reference of ConvTestUtil.h. Most run untuned; every kTunedEvery-th is
// also tuned, with two candidates. Small shapes keep the whole sweep within
// seconds, under the sanitizers too.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "Runtime/ConvParams.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

namespace ttile {
namespace {

using testing::ConvCase;
using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

constexpr int kShapes = 48;
constexpr int kTunedEvery = 5;

/// Shape number `index` of the sweep, the same on every run.
Conv2DParams randomShape(int index) {
  std::mt19937_64 random(0x5eed0000u + static_cast<uint64_t>(index));
  auto pick = [&](int64_t least, int64_t most) {
    return std::uniform_int_distribution<int64_t>(least, most)(random);
  };
  Conv2DParams p;
  p.N = pick(1, 3);
  // Plain, grouped, or depthwise (one input channel per group) with a
  // multiplier of 1 or 2.
  switch (pick(0, 2)) {
  case 0:
    p.C = pick(1, 20);
    p.K = pick(1, 20);
    break;
  case 1:
    p.groups = pick(2, 4);
    p.C = p.groups * pick(2, 5);
    p.K = p.groups * pick(1, 5);
    break;
  default:
    p.groups = p.C = pick(2, 16);
    p.K = p.C * pick(1, 2);
    break;
  }
  p.R = pick(1, 4);
  p.S = pick(1, 4);
  p.strideH = pick(1, 3);
  p.strideW = pick(1, 3);
  p.dilationH = pick(1, 2);
  p.dilationW = pick(1, 2);
  p.padTop = pick(0, 2);
  p.padLeft = pick(0, 2);
  p.padBottom = pick(0, 2);
  p.padRight = pick(0, 2);
  // At least the dilated kernel, once padded: every shape has an output.
  auto inputSize = [&](int64_t kernel, int64_t dilation, int64_t pads) {
    int64_t dilated = (kernel - 1) * dilation + 1;
    return pick(std::max<int64_t>(1, dilated - pads), dilated + 9);
  };
  p.H = inputSize(p.R, p.dilationH, p.padTop + p.padBottom);
  p.W = inputSize(p.S, p.dilationW, p.padLeft + p.padRight);
  // NCHWToNHWC is for convolutions of more than one input channel a group.
  const bool depthwise = p.groups > 1 && p.C == p.groups;
  p.layout = static_cast<Layout>(pick(0, depthwise ? 1 : 2));
  p.activation = static_cast<Activation>(
      pick(0, static_cast<int64_t>(Activation::Tanh)));
  // Clamp's bounds and LeakyReLU's slope, in tenths.
  p.alpha = static_cast<float>(pick(-10, 5)) / 10;
  p.beta = p.alpha + static_cast<float>(pick(0, 20)) / 10;
  p.residual = pick(0, 1) == 1;
  p.constantWeights = pick(0, 1) == 1;
  return p;
}

class SweepTest : public ::testing::TestWithParam<int> {
protected:
  TemporaryDirectory cacheDirectory;
  ScopedEnvironment cacheDir{"TTILE_CACHE_DIR", cacheDirectory.path().string()};
};

TEST_P(SweepTest, MatchesTheReference) {
  const int index = GetParam();
  const Conv2DParams p = randomShape(index);
  Conv2D conv(p);
  SCOPED_TRACE(runtime::ConvProblem(p).str());
  ConvCase reference(p, /*withBias=*/index % 2 == 0,
                     /*seed=*/static_cast<uint64_t>(index));
  reference.expectRunsMatch(conv);
  if (index % kTunedEvery == 0) {
    // A fresh object: tune() after setWeights() is refused.
    Conv2D tuned(p);
    TuneOptions quick;
    quick.trials = 2;
    tuned.tune(quick);
    SCOPED_TRACE("tuned: " + tuned.scheme());
    reference.expectRunsMatch(tuned);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SweepTest, ::testing::Range(0, kShapes));

} // namespace
} // namespace ttile
