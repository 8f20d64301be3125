// Tunes a ResNet-18 layer with ttile, runs it, and checks the result
// against a naive loop. Exits with 0 when the results match.

#include <ttile/ttile.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

std::vector<float> randomValues(int64_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float &v : values)
    v = value(random);
  return values;
}

/// The largest difference between `output` and a direct evaluation of the
/// convolution (NHWC input, RSCK weights, NHWK output), relative to the sum
/// of the magnitudes of the terms of each element.
double largestRelativeError(const ttile::Conv2DParams &p, int64_t outH,
                            int64_t outW, const std::vector<float> &input,
                            const std::vector<float> &weights,
                            const std::vector<float> &bias,
                            const std::vector<float> &output) {
  double worst = 0;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t k = 0; k < p.K; ++k) {
          double sum = bias[static_cast<size_t>(k)];
          double magnitude = std::abs(sum);
          for (int64_t r = 0; r < p.R; ++r)
            for (int64_t s = 0; s < p.S; ++s) {
              int64_t h = oh * p.strideH + r * p.dilationH - p.padTop;
              int64_t w = ow * p.strideW + s * p.dilationW - p.padLeft;
              if (h < 0 || h >= p.H || w < 0 || w >= p.W)
                continue;
              for (int64_t c = 0; c < p.C; ++c) {
                double term =
                    static_cast<double>(input[static_cast<size_t>(
                        ((n * p.H + h) * p.W + w) * p.C + c)]) *
                    weights[static_cast<size_t>(((r * p.S + s) * p.C + c) *
                                                    p.K +
                                                k)];
                sum += term;
                magnitude += std::abs(term);
              }
            }
          size_t at = static_cast<size_t>(((n * outH + oh) * outW + ow) * p.K + k);
          worst = std::max(worst, std::abs(output[at] - sum) / (magnitude + 1e-30));
        }
  return worst;
}

} // namespace

int main() {
  try {
    ttile::Conv2DParams p;
    p.N = 1; p.C = 64; p.H = 56; p.W = 56;        // input batch, channels, height, width
    p.K = 64; p.R = 3; p.S = 3;                   // output channels, kernel height, kernel width
    p.strideH = 1; p.strideW = 1;
    p.padTop = 1; p.padLeft = 1; p.padBottom = 1; p.padRight = 1;
    p.dilationH = 1; p.dilationW = 1;
    p.groups = 1;
    p.layout = ttile::Layout::NHWC;   // input NHWC, weights RSCK (HWIO), output NHWK
    p.activation = ttile::Activation::None;
    ttile::Conv2D conv(p);            // throws ttile::Error on invalid params
    int64_t oh = conv.outH(), ow = conv.outW();
    conv.tune();

    std::vector<float> input = randomValues(p.N * p.H * p.W * p.C, 1);
    std::vector<float> weights = randomValues(p.R * p.S * p.C * p.K, 2);
    std::vector<float> bias = randomValues(p.K, 3);
    std::vector<float> output(static_cast<size_t>(p.N * oh * ow * p.K));
    conv.run(input.data(), weights.data(), bias.data(), output.data());
    std::string s = conv.scheme();    // the scheme in use, in the scheme language

    ttile::Conv2D::TuneInfo info = conv.tuneInfo();
    double error =
        largestRelativeError(p, oh, ow, input, weights, bias, output);
    std::printf("conv2d %lldx%lld -> %lldx%lld: %.1f GFLOP/s (%s), largest "
                "relative error %.2g\nscheme: %s\n",
                static_cast<long long>(p.H), static_cast<long long>(p.W),
                static_cast<long long>(oh), static_cast<long long>(ow),
                info.gflops, info.cacheHit ? "from the cache" : "tuned now",
                error, s.c_str());
    return error < 1e-4 ? 0 : 1;
  } catch (const ttile::Error &error) {
    std::fprintf(stderr, "conv2d: %s\n", error.what());
    return 1;
  }
}
