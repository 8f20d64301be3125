//===- unittests/Runtime/ConvTestUtil.h - A naive convolution ---*- C++ -*-===//
//
// The reference the runtime tests check against: a direct loop over the
// ONNX definition of Conv on NHWC input, RSCK weights and NHWK output,
// with padding, strides, dilation, bias and ReLU, in double precision.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_RUNTIME_CONVTESTUTIL_H
#define TTILE_UNITTESTS_RUNTIME_CONVTESTUTIL_H

#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace ttile::testing {

/// `count` values uniform in [-1, 1).
inline std::vector<float> randomValues(int64_t count, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float &v : values)
    v = value(random);
  return values;
}

/// Inputs of one problem, random, and the output the reference computes.
struct ConvCase {
  /// Without `withBias`, the bias is zero and biasOrNull() null.
  explicit ConvCase(const Conv2DParams &params, bool withBias = true,
                    uint64_t seed = 1);

  const float *biasOrNull() const { return hasBias ? bias.data() : nullptr; }
  /// Runs `conv` on these inputs, into an output first filled with a huge
  /// value so that elements the kernel forgets show.
  std::vector<float> run(const Conv2D &conv) const {
    std::vector<float> output(expected.size(), 1e30f);
    conv.run(input.data(), weights.data(), biasOrNull(), output.data());
    return output;
  }

  /// Expects `output` to match the reference within a tolerance relative
  /// to the magnitude of the terms summed into each element.
  void expectMatches(const std::vector<float> &output) const;

  Conv2DParams params;
  bool hasBias;
  int64_t outH, outW;
  std::vector<float> input, weights, bias;
  std::vector<double> expected, magnitude;
};

inline ConvCase::ConvCase(const Conv2DParams &p, bool withBias, uint64_t seed)
    : params(p), hasBias(withBias) {
  outH = (p.H + p.padTop + p.padBottom - p.dilationH * (p.R - 1) - 1) /
             p.strideH + 1;
  outW = (p.W + p.padLeft + p.padRight - p.dilationW * (p.S - 1) - 1) /
             p.strideW + 1;
  input = randomValues(p.N * p.H * p.W * p.C, seed);
  weights = randomValues(p.R * p.S * p.C * p.K, seed + 1);
  bias = withBias ? randomValues(p.K, seed + 2)
                  : std::vector<float>(static_cast<size_t>(p.K), 0.0f);
  expected.resize(static_cast<size_t>(p.N * outH * outW * p.K));
  magnitude.resize(expected.size());
  size_t o = 0;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t k = 0; k < p.K; ++k, ++o) {
          double sum = bias[static_cast<size_t>(k)];
          double size = std::abs(sum);
          for (int64_t r = 0; r < p.R; ++r)
            for (int64_t s = 0; s < p.S; ++s) {
              int64_t h = oh * p.strideH + r * p.dilationH - p.padTop;
              int64_t w = ow * p.strideW + s * p.dilationW - p.padLeft;
              if (h < 0 || h >= p.H || w < 0 || w >= p.W)
                continue;
              for (int64_t c = 0; c < p.C; ++c) {
                double term =
                    double(input[size_t(((n * p.H + h) * p.W + w) * p.C + c)]) *
                    weights[size_t(((r * p.S + s) * p.C + c) * p.K + k)];
                sum += term;
                size += std::abs(term);
              }
            }
          if (p.activation == Activation::ReLU)
            sum = std::max(sum, 0.0);
          expected[o] = sum;
          magnitude[o] = size;
        }
}

inline void ConvCase::expectMatches(const std::vector<float> &output) const {
  ASSERT_EQ(output.size(), expected.size());
  int mismatches = 0;
  for (size_t i = 0; i < output.size() && mismatches < 8; ++i)
    if (!(std::abs(output[i] - expected[i]) <= 1e-4 * magnitude[i] + 1e-6)) {
      ADD_FAILURE() << "output element " << i << ": expected " << expected[i]
                    << ", got " << output[i];
      ++mismatches;
    }
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_CONVTESTUTIL_H
