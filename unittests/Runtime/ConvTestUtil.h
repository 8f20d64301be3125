//===- unittests/Runtime/ConvTestUtil.h - A naive convolution ---*- C++ -*-===//
//
// The reference the runtime tests check against: a direct loop over the
// ONNX definition of Conv, in either layout (NHWC input, RSCK weights and
// NHWK output, or NCHW, KCRS and NKHW), with padding, strides, dilation,
// groups, bias, residual and every activation, in double precision.
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
#include <string>
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

/// ONNX's activations in double, written here again rather than taken from
/// lib/Spec, so that the runtime tests check the library against an
/// independent definition.
inline double activate(Activation activation, double alpha, double beta,
                       double x) {
  switch (activation) {
  case Activation::None:
    return x;
  case Activation::ReLU:
    return std::max(x, 0.0);
  case Activation::Clamp:
    return std::min(std::max(x, alpha), beta);
  case Activation::LeakyReLU:
    return x < 0 ? alpha * x : x;
  case Activation::SiLU:
    return x / (1 + std::exp(-x));
  case Activation::HardSwish:
    return x * std::min(1.0, std::max(0.0, x / 6 + 0.5));
  case Activation::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case Activation::Tanh:
    return std::tanh(x);
  }
  return x;
}
inline double activate(const Conv2DParams &p, double x) {
  return activate(p.activation, p.alpha, p.beta, x);
}

/// Whether `actual` is the reference's `expected` within a tolerance
/// relative to `magnitude`, the sum of the absolute terms behind it.
inline bool closeEnough(float actual, double expected, double magnitude) {
  return std::abs(actual - expected) <= 1e-4 * magnitude + 1e-6;
}

/// The magnitude closeEnough() compares against for an element of sum of
/// absolute terms `size` and reference value `expected`: the activation's
/// slope is at most 1.5 (HardSwish), and its own rounding is relative to
/// its result.
inline double toleratedMagnitude(Activation activation, double size,
                                 double expected) {
  return activation == Activation::None ? size
                                        : 1.5 * size + std::abs(expected);
}

/// Inputs of one problem, random, and the output the reference computes.
struct ConvCase {
  /// Without `withBias`, the bias is zero and biasOrNull() null. The input
  /// is `givenInput` where given (a layer's output), else random.
  explicit ConvCase(const Conv2DParams &params, bool withBias = true,
                    uint64_t seed = 1,
                    const std::vector<float> *givenInput = nullptr);

  const float *biasOrNull() const { return hasBias ? bias.data() : nullptr; }
  /// Runs `conv` on these inputs, into an output first filled with a huge
  /// value so that elements the kernel forgets show; with a residual, in
  /// its own buffer.
  std::vector<float> run(const Conv2D &conv) const {
    std::vector<float> output(expected.size(), 1e30f);
    conv.run(RunArgs{input.data(),
                     params.constantWeights ? nullptr : weights.data(),
                     biasOrNull(), params.residual ? residual.data() : nullptr,
                     output.data()});
    return output;
  }
  /// Runs `conv`, which has a residual, with the residual in the output
  /// buffer: output = act(conv + bias + output).
  std::vector<float> runInPlace(const Conv2D &conv) const {
    std::vector<float> output = residual;
    conv.run(RunArgs{input.data(),
                     params.constantWeights ? nullptr : weights.data(),
                     biasOrNull(), output.data(), output.data()});
    return output;
  }

  /// Expects `output` to match the reference within a tolerance relative
  /// to the magnitude of the terms summed into each element.
  void expectMatches(const std::vector<float> &output) const;
  /// Runs `conv` on these buffers (given its weights first when they are
  /// constant) and checks it, with the residual in its own buffer and then
  /// in place.
  void expectRunsMatch(Conv2D &conv) const {
    if (params.constantWeights)
      conv.setWeights(weights.data());
    expectMatches(run(conv));
    if (params.residual)
      expectMatches(runInPlace(conv));
  }
  /// The elements of `output` that do not match, described, at most
  /// `limit` of them; for code that runs outside a test (a child process).
  std::vector<std::string> mismatches(const std::vector<float> &output,
                                      int limit = 8) const;

  Conv2DParams params;
  bool hasBias;
  int64_t outH, outW;
  std::vector<float> input, weights, bias;
  std::vector<float> residual; ///< Empty without params.residual.
  std::vector<double> expected, magnitude;
};

inline ConvCase::ConvCase(const Conv2DParams &p, bool withBias, uint64_t seed,
                          const std::vector<float> *givenInput)
    : params(p), hasBias(withBias) {
  outH = (p.H + p.padTop + p.padBottom - p.dilationH * (p.R - 1) - 1) /
             p.strideH + 1;
  outW = (p.W + p.padLeft + p.padRight - p.dilationW * (p.S - 1) - 1) /
             p.strideW + 1;
  // Channels of one group; c and k below count within the group.
  const int64_t groupC = p.C / p.groups, groupK = p.K / p.groups;
  // Where each element lives in the layout of `p`.
  const bool nchw = p.layout == Layout::NCHW;
  const bool nchwInput = nchw || p.layout == Layout::NCHWToNHWC;
  auto inputAt = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return size_t(nchwInput ? ((n * p.C + c) * p.H + h) * p.W + w
                            : ((n * p.H + h) * p.W + w) * p.C + c);
  };
  auto weightAt = [&](int64_t k, int64_t c, int64_t r, int64_t s) {
    return size_t(nchw ? ((k * groupC + c) * p.R + r) * p.S + s
                       : ((r * p.S + s) * groupC + c) * p.K + k);
  };
  auto outputAt = [&](int64_t n, int64_t k, int64_t h, int64_t w) {
    return size_t(nchw ? ((n * p.K + k) * outH + h) * outW + w
                       : ((n * outH + h) * outW + w) * p.K + k);
  };
  input = givenInput ? *givenInput : randomValues(p.N * p.H * p.W * p.C, seed);
  weights = randomValues(p.R * p.S * groupC * p.K, seed + 1);
  bias = withBias ? randomValues(p.K, seed + 2)
                  : std::vector<float>(static_cast<size_t>(p.K), 0.0f);
  if (p.residual)
    residual = randomValues(p.N * outH * outW * p.K, seed + 3);
  expected.resize(static_cast<size_t>(p.N * outH * outW * p.K));
  magnitude.resize(expected.size());
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t k = 0; k < p.K; ++k) {
          const int64_t firstC = k / groupK * groupC;
          double sum = bias[static_cast<size_t>(k)];
          double size = std::abs(sum);
          for (int64_t r = 0; r < p.R; ++r)
            for (int64_t s = 0; s < p.S; ++s) {
              int64_t h = oh * p.strideH + r * p.dilationH - p.padTop;
              int64_t w = ow * p.strideW + s * p.dilationW - p.padLeft;
              if (h < 0 || h >= p.H || w < 0 || w >= p.W)
                continue;
              for (int64_t c = 0; c < groupC; ++c) {
                double term = double(input[inputAt(n, firstC + c, h, w)]) *
                              weights[weightAt(k, c, r, s)];
                sum += term;
                size += std::abs(term);
              }
            }
          const size_t at = outputAt(n, k, oh, ow);
          if (p.residual) {
            sum += residual[at];
            size += std::abs(residual[at]);
          }
          expected[at] = activate(p, sum);
          magnitude[at] = toleratedMagnitude(p.activation, size, expected[at]);
        }
}

inline std::vector<std::string>
ConvCase::mismatches(const std::vector<float> &output, int limit) const {
  std::vector<std::string> found;
  if (output.size() != expected.size()) {
    found.push_back("the output has " + std::to_string(output.size()) +
                    " elements, not " + std::to_string(expected.size()));
    return found;
  }
  for (size_t i = 0;
       i < output.size() && static_cast<int>(found.size()) < limit; ++i)
    if (!closeEnough(output[i], expected[i], magnitude[i]))
      found.push_back("output element " + std::to_string(i) + ": expected " +
                      std::to_string(expected[i]) + ", got " +
                      std::to_string(output[i]));
  return found;
}

inline void ConvCase::expectMatches(const std::vector<float> &output) const {
  for (const std::string &mismatch : mismatches(output))
    ADD_FAILURE() << mismatch;
}

/// A Conv2DPair's inputs, random, and both layers' reference: the second's
/// on the first's expected output.
struct PairCase {
  PairCase(const Conv2DParams &first, const Conv2DParams &second)
      : firstCase(first, true, 1),
        intermediate(firstCase.expected.begin(), firstCase.expected.end()),
        secondCase(second, true, 5, &intermediate) {}

  /// Runs `pair` into an output first filled with a huge value; with a
  /// residual, in its own buffer, or in the output's with `inPlace`.
  std::vector<float> run(const Conv2DPair &pair, bool inPlace) const {
    std::vector<float> output =
        inPlace ? secondCase.residual
                : std::vector<float>(secondCase.expected.size(), 1e30f);
    Conv2DPairRunArgs args;
    args.input = firstCase.input.data();
    args.firstBias = firstCase.bias.data();
    args.secondBias = secondCase.bias.data();
    args.output = output.data();
    if (secondCase.params.residual)
      args.residual = inPlace ? output.data() : secondCase.residual.data();
    pair.run(args);
    return output;
  }

  /// Gives `pair` its weights, then checks its runs, with the residual in
  /// its own buffer and in place.
  void expectComputedBy(Conv2DPair &pair) const {
    pair.setWeights(firstCase.weights.data(), secondCase.weights.data());
    secondCase.expectMatches(run(pair, false));
    if (secondCase.params.residual)
      secondCase.expectMatches(run(pair, true));
  }

  ConvCase firstCase;
  std::vector<float> intermediate;
  ConvCase secondCase;
};

/// A small layer like the API's example: 3x3, padding 1, 8 to 16 channels
/// on a 10x10 image. Compiles in milliseconds.
inline Conv2DParams smallLayer() {
  Conv2DParams p;
  p.N = 1;
  p.C = 8;
  p.H = 10;
  p.W = 10;
  p.K = 16;
  p.R = 3;
  p.S = 3;
  p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
  return p;
}

/// The C API's parameters of the same problem.
inline ttile_conv2d_params toCParams(const Conv2DParams &p) {
  ttile_conv2d_params c;
  ttile_conv2d_params_init(&c); // Fields added later keep their defaults.
  c.N = p.N;
  c.C = p.C;
  c.H = p.H;
  c.W = p.W;
  c.K = p.K;
  c.R = p.R;
  c.S = p.S;
  c.strideH = p.strideH;
  c.strideW = p.strideW;
  c.padTop = p.padTop;
  c.padLeft = p.padLeft;
  c.padBottom = p.padBottom;
  c.padRight = p.padRight;
  c.dilationH = p.dilationH;
  c.dilationW = p.dilationW;
  c.groups = p.groups;
  c.layout = static_cast<int32_t>(p.layout);
  c.activation = static_cast<int32_t>(p.activation);
  c.alpha = p.alpha;
  c.beta = p.beta;
  c.residual = p.residual ? 1 : 0;
  return c;
}

/// Few candidates: tests check what tune() does, not how well.
inline TuneOptions quickTune() {
  TuneOptions options;
  options.trials = 2;
  return options;
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_CONVTESTUTIL_H
