//===- unittests/Runtime/Conv2DPairTest.cpp - Two convolutions in bands --===//
//
// Conv2DPair against the naive convolution applied twice, in double
// precision: MobileNet's expansion and depthwise layers (stride 1 and 2),
// a full convolution after the pointwise one (dilated, padded more than
// its window, with a height whose only divisors are 1 and itself), images
// of a batch, residuals apart and in place, untuned and tuned; then every
// error, named.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConvTestUtil.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::PairCase;
using testing::quickTune;

class Conv2DPairTest : public ::testing::Test {
protected:
  testing::IsolatedCache cache;
};

Conv2DParams pointwise(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k) {
  Conv2DParams p;
  p.N = n;
  p.C = c;
  p.H = h;
  p.W = w;
  p.K = k;
  p.R = p.S = 1;
  p.activation = Activation::Clamp;
  p.alpha = 0;
  p.beta = 6;
  return p;
}

/// A 3x3 (groups = channels: depthwise) of `first`'s output.
Conv2DParams window3x3(const Conv2DParams &first, int64_t k, int64_t stride,
                       int64_t groups) {
  Conv2DParams p;
  p.N = first.N;
  p.C = first.K;
  p.H = first.H;
  p.W = first.W;
  p.K = k;
  p.R = p.S = 3;
  p.strideH = p.strideW = stride;
  p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
  p.groups = groups;
  return p;
}

void expectPairMatches(const Conv2DParams &first, const Conv2DParams &second) {
  SCOPED_TRACE("second " + std::to_string(second.K) + "x" +
               std::to_string(second.C) + " " + std::to_string(second.R) + "x" +
               std::to_string(second.S) + " stride " +
               std::to_string(second.strideH));
  const PairCase both(first, second);
  Conv2DPair untuned(first, second);
  EXPECT_EQ(untuned.outputElements(), int64_t(both.secondCase.expected.size()));
  both.expectComputedBy(untuned);
  EXPECT_FALSE(untuned.tuneInfo().tuned);
  Conv2DPair tuned(first, second);
  EXPECT_FALSE(tuned.isCached(quickTune()));
  tuned.tune(quickTune());
  const TuneInfo info = tuned.tuneInfo();
  EXPECT_TRUE(info.tuned);
  EXPECT_GT(info.kernelSeconds, 0);
  EXPECT_GT(info.gflops, 0);
  EXPECT_TRUE(tuned.isCached(quickTune()));
  both.expectComputedBy(tuned);
}

TEST_F(Conv2DPairTest, ExpansionThenDepthwiseStrideTwo) {
  const Conv2DParams first = pointwise(1, 8, 20, 18, 32);
  Conv2DParams second = window3x3(first, 32, 2, 32);
  second.activation = Activation::Clamp;
  second.beta = 6;
  Conv2DPair pair(first, second);
  EXPECT_EQ(pair.outH(), 10);
  EXPECT_EQ(pair.outW(), 9);
  EXPECT_EQ(pair.flops(), 2 * 20 * 18 * 32 * 8 + 2 * 10 * 9 * 32 * 9);
  EXPECT_NE(pair.scheme().find("second: "), std::string::npos);
  expectPairMatches(first, second);
}

TEST_F(Conv2DPairTest, ExpansionThenDepthwiseOverImagesWithResidual) {
  const Conv2DParams first = pointwise(2, 16, 12, 12, 48);
  Conv2DParams second = window3x3(first, 48, 1, 48);
  second.residual = true;
  expectPairMatches(first, second);
}

TEST_F(Conv2DPairTest, FullConvolutionDilatedPaddedOnAPrimeHeight) {
  // 13 output rows: bands of 1 row, or one of 13.
  Conv2DParams first = pointwise(1, 5, 13, 9, 12);
  first.activation = Activation::LeakyReLU;
  first.alpha = 0.1f;
  first.beta = 0;
  Conv2DParams second = window3x3(first, 20, 1, 1);
  second.dilationH = second.dilationW = 2;
  second.padTop = 4; // More than the window reaches: rows of zeros only.
  second.padBottom = 0;
  second.padLeft = second.padRight = 2;
  second.activation = Activation::SiLU;
  expectPairMatches(first, second);
}

TEST_F(Conv2DPairTest, StrideWiderThanTheWindow) {
  // 1x1 stride 3: consecutive bands' windows do not overlap.
  const Conv2DParams first = pointwise(1, 4, 15, 7, 8);
  Conv2DParams second = window3x3(first, 8, 3, 1);
  second.R = second.S = 1;
  second.padTop = second.padLeft = second.padBottom = second.padRight = 0;
  expectPairMatches(first, second);
}

TEST_F(Conv2DPairTest, RefusesWhatItDoesNotCompute) {
  const Conv2DParams first = pointwise(1, 8, 10, 10, 16);
  const Conv2DParams second = window3x3(first, 16, 1, 16);
  auto expectRefused = [](const Conv2DParams &a, const Conv2DParams &b,
                          const std::string &words) {
    try {
      Conv2DPair pair(a, b);
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos)
          << error.what();
    }
  };
  Conv2DParams spatial = first;
  spatial.R = 3;
  expectRefused(spatial, second, "must be pointwise");
  Conv2DParams strided = first;
  strided.strideH = 2;
  expectRefused(strided, second, "must be pointwise");
  Conv2DParams nchw = first;
  nchw.layout = Layout::NCHW;
  expectRefused(nchw, second, "NHWC");
  Conv2DParams withResidual = first;
  withResidual.residual = true;
  expectRefused(withResidual, second, "cannot add a residual");
  Conv2DParams otherChannels = second;
  otherChannels.C = 8;
  otherChannels.groups = 8;
  expectRefused(first, otherChannels, "must be the first's output");
  Conv2DParams badGroups = second;
  badGroups.groups = 3;
  expectRefused(first, badGroups, "the second convolution: ");
}

TEST_F(Conv2DPairTest, RefusesBadRuns) {
  const Conv2DParams first = pointwise(1, 8, 10, 10, 16);
  Conv2DParams second = window3x3(first, 16, 1, 16);
  second.residual = true;
  const PairCase both(first, second);
  Conv2DPair pair(first, second);
  std::vector<float> output(both.secondCase.expected.size());
  std::vector<float> input = both.firstCase.input;
  Conv2DPairRunArgs args;
  args.input = input.data();
  args.residual = output.data();
  args.output = output.data();
  auto expectRefused = [&](const Conv2DPairRunArgs &bad,
                           const std::string &words) {
    try {
      pair.run(bad);
      ADD_FAILURE() << "ran; expected: " << words;
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos)
          << error.what();
    }
  };
  expectRefused(args, "setWeights()");
  EXPECT_THROW(pair.setWeights(nullptr, both.secondCase.weights.data()), Error);
  pair.setWeights(both.firstCase.weights.data(),
                  both.secondCase.weights.data());
  pair.run(args);
  Conv2DPairRunArgs noResidual = args;
  noResidual.residual = nullptr;
  expectRefused(noResidual, "residual");
  Conv2DPairRunArgs overlapping = args;
  overlapping.input = output.data() + 1;
  expectRefused(overlapping, "input");
  Conv2DPairRunArgs biasInOutput = args;
  biasInOutput.firstBias = output.data() + 4;
  expectRefused(biasInOutput, "firstBias");
  Conv2DParams plain = second;
  plain.residual = false;
  Conv2DPair withoutResidual(first, plain);
  withoutResidual.setWeights(both.firstCase.weights.data(),
                             both.secondCase.weights.data());
  try {
    withoutResidual.run(args);
    ADD_FAILURE() << "ran with a residual it does not add";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("residual"), std::string::npos)
        << error.what();
  }
  Conv2DPairRunArgs misaligned = args;
  misaligned.firstBias = reinterpret_cast<const float *>(
      reinterpret_cast<const char *>(input.data()) + 1);
  expectRefused(misaligned, "firstBias");
}

} // namespace
} // namespace ttile
