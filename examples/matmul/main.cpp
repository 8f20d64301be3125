// A transformer's projection with ttile: Y = SiLU(X W^T + b) for a
// sequence of 128 tokens of 768 features, W stored as PyTorch's Linear
// keeps it (out_features x in_features, so transB) and given once. Checks
// the result against a naive loop; exits with 0 when it matches.

#include <ttile/ttile.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  try {
    ttile::MatMulParams p;
    p.M = 128;          // tokens
    p.N = 768;          // output features
    p.K = 768;          // input features
    p.transB = true;    // W is N x K, as torch.nn.Linear stores it
    p.constantB = true; // weights given once, laid out for the kernel
    p.activation = ttile::Activation::SiLU;
    ttile::MatMul projection(p);
    projection.tune();

    std::mt19937 random(1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    auto randomVector = [&](int64_t count) {
      std::vector<float> v(static_cast<size_t>(count));
      for (float &x : v)
        x = value(random);
      return v;
    };
    std::vector<float> X = randomVector(p.M * p.K), W = randomVector(p.N * p.K),
                       b = randomVector(p.N), Y(static_cast<size_t>(p.M * p.N));
    projection.setWeights(W.data());
    projection.run(X.data(), b.data(), Y.data());

    double worst = 0;
    for (int64_t i = 0; i < p.M; ++i)
      for (int64_t j = 0; j < p.N; ++j) {
        double sum = b[j], magnitude = std::abs(sum);
        for (int64_t k = 0; k < p.K; ++k) {
          double term = double(X[i * p.K + k]) * W[j * p.K + k];
          sum += term;
          magnitude += std::abs(term);
        }
        double expected = sum / (1 + std::exp(-sum));
        worst = std::max(worst, std::abs(Y[i * p.N + j] - expected) /
                                    (magnitude + 1e-30));
      }
    ttile::TuneInfo info = projection.tuneInfo();
    std::printf("matmul %lldx%lldx%lld: %.1f GFLOP/s (%s), largest relative "
                "error %.2g\nscheme: %s\n",
                static_cast<long long>(p.M), static_cast<long long>(p.N),
                static_cast<long long>(p.K), info.gflops,
                info.cacheHit ? "from the cache" : "tuned now", worst,
                projection.scheme().c_str());
    return worst < 1e-4 ? 0 : 1;
  } catch (const ttile::Error &error) {
    std::fprintf(stderr, "matmul: %s\n", error.what());
    return 1;
  }
}
