//===- unittests/Runtime/MatMulTest.cpp - ttile::MatMul -------------------===//
//
// MatMul against the naive reference of MatMulTestUtil.h: random problems
// over every parameter (batch, transposes, row and batch strides, a
// broadcast B, constant B, every activation, the residual in its own buffer
// and in place), run untuned and tuned; and every parameter or buffer that
// breaks a rule, named in the error.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "MatMulTestUtil.h"
#include "VectorAtoms.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::MatMulCase;
using testing::quickTune;

class MatMulTest : public ::testing::Test {
protected:
  testing::IsolatedCache cache;
};

/// A problem drawn over every parameter; sizes up to 40 cover masked vector
/// tails, microkernels that divide nothing, and the Lambda combinations. N
/// is at most `largestN`.
MatMulParams randomProblem(std::mt19937_64 &random, int64_t largestN = 40) {
  auto below = [&](int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(random);
  };
  auto coin = [&] { return below(2) == 1; };
  MatMulParams p;
  p.batch = coin() ? 1 : 1 + below(3);
  p.M = 1 + below(40);
  p.N = 1 + below(largestN);
  p.K = 1 + below(40);
  p.transA = coin();
  p.transB = coin();
  p.broadcastB = p.batch > 1 && coin();
  p.constantB = below(4) == 0;
  // Row strides past the row, and batch items apart, half the time.
  auto padded = [&](int64_t width) { return coin() ? width + below(5) : 0; };
  p.lda = padded(p.transA ? p.M : p.K);
  p.ldb = padded(p.transB ? p.K : p.N);
  p.ldc = padded(p.N);
  if (p.batch > 1) {
    auto apart = [&](int64_t rows, int64_t ld, int64_t width) {
      return coin() ? rows * (ld ? ld : width) + below(7) : 0;
    };
    p.strideA = apart(p.transA ? p.K : p.M, p.lda, p.transA ? p.M : p.K);
    if (!p.broadcastB)
      p.strideB = apart(p.transB ? p.N : p.K, p.ldb, p.transB ? p.K : p.N);
    p.strideC = apart(p.M, p.ldc, p.N);
  }
  p.activation = static_cast<Activation>(below(8));
  p.alpha = p.activation == Activation::Clamp ? -0.5f : 0.1f;
  p.beta = 0.5f;
  p.residual = coin();
  return p;
}

std::string describe(const MatMulParams &p) {
  return "batch=" + std::to_string(p.batch) + " M=" + std::to_string(p.M) +
         " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
         (p.transA ? " transA" : "") + (p.transB ? " transB" : "") +
         " lda=" + std::to_string(p.lda) + " ldb=" + std::to_string(p.ldb) +
         " ldc=" + std::to_string(p.ldc) +
         " strideA=" + std::to_string(p.strideA) +
         " strideB=" + std::to_string(p.strideB) +
         " strideC=" + std::to_string(p.strideC) +
         (p.broadcastB ? " broadcastB" : "") +
         (p.constantB ? " constantB" : "") + (p.residual ? " residual" : "") +
         " activation=" + std::to_string(static_cast<int>(p.activation));
}

/// Checks `matmul` on `testCase`, with the residual in place too.
void expectCorrect(MatMul &matmul, const MatMulCase &testCase) {
  if (testCase.params.constantB)
    matmul.setWeights(testCase.B.data());
  testCase.expectMatches(testCase.run(matmul));
  if (testCase.params.residual)
    testCase.expectMatches(testCase.run(matmul, /*inPlace=*/true));
}

/// Checks `params`, with a bias but every third trial, tuned where `tuned` (the
/// candidates drawn at random, each checked by the tuner, none of which may
/// be wrong); returns the scheme that ran.
std::string expectMatchesTheReference(const MatMulParams &params, int trial,
                                      int seed, bool tuned) {
  SCOPED_TRACE(describe(params));
  MatMulCase testCase(params, /*withBias=*/trial % 3 != 0, seed);
  MatMul matmul(params);
  if (tuned) {
    matmul.tune(quickTune());
    EXPECT_EQ(matmul.tuneInfo().rejected, 0) << matmul.scheme();
  }
  SCOPED_TRACE(matmul.scheme());
  expectCorrect(matmul, testCase);
  return matmul.scheme();
}

TEST_F(MatMulTest, RandomProblemsMatchTheReference) {
  std::mt19937_64 random(2026);
  for (int trial = 0; trial < 48; ++trial)
    expectMatchesTheReference(randomProblem(random), trial, 100 + trial,
                              /*tuned=*/trial % 4 == 0);
}

// N = 1 with B contiguous along k runs the dot microkernels, whose lanes
// run along K and are summed at the store (lanes past K read zeros); with
// B's column strided (ldb > 1) or A transposed, the matmul ones.
TEST_F(MatMulTest, MatrixTimesVectorMatchesTheReference) {
  std::mt19937_64 random(1128);
  int dotSchemes = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const MatMulParams params = randomProblem(random, /*largestN=*/1);
    const std::string scheme = expectMatchesTheReference(
        params, trial, 300 + trial, /*tuned=*/trial % 2 == 0);
    const bool dot = !params.transA && (params.transB || params.ldb <= 1);
    EXPECT_EQ(testing::endsVectorizing(scheme, "k"), dot)
        << describe(params) << scheme;
    dotSchemes += dot;
  }
  EXPECT_GE(dotSchemes, 6);
}

// An inference engine's fully connected layer on one image: x (1 x K)
// times the weights W (N x K) transposed, constant, with a bias and ReLU,
// dot products over W's rows.
TEST_F(MatMulTest, AFullyConnectedLayerOnOneImageRunsAsDotProducts) {
  const MatMulParams params{.M = 1,
                            .N = 45,
                            .K = 83,
                            .transB = true,
                            .activation = Activation::ReLU,
                            .constantB = true};
  const std::string scheme =
      expectMatchesTheReference(params, /*trial=*/1, 11, /*tuned=*/true);
  EXPECT_TRUE(testing::endsVectorizing(scheme, "k")) << scheme;
}

TEST_F(MatMulTest, AShapeLikeBertsProjectionTunesAndRuns) {
  MatMulParams params;
  params.M = 128;
  params.N = 96;
  params.K = 256;
  params.activation = Activation::SiLU;
  MatMulCase testCase(params, /*withBias=*/true, 7);
  MatMul matmul(params);
  TuneOptions options;
  options.trials = 4;
  matmul.tune(options);
  EXPECT_TRUE(matmul.tuneInfo().tuned);
  EXPECT_EQ(matmul.tuneInfo().rejected, 0);
  EXPECT_EQ(matmul.flops(), 2 * 128 * 96 * 256);
  expectCorrect(matmul, testCase);

  // A second MatMul of the same problem links the cached winner.
  MatMul again(params);
  again.tune(options);
  EXPECT_TRUE(again.tuneInfo().cacheHit);
  EXPECT_EQ(again.scheme(), matmul.scheme());
}

TEST_F(MatMulTest, ATransposedBIsPackedWithJContiguous) {
  MatMulParams params;
  params.M = 64;
  params.N = 48;
  params.K = 512;
  params.transB = true;
  MatMul matmul(params);
  const std::string scheme = matmul.scheme();
  // The vector loads of B read it with j contiguous: a Pack that moves j
  // last. Whether it copies B whole or a block of k at a time, every call
  // copies B once; the model (untuned) packs it whole, which reloads no
  // accumulators: 37-40 us against 35-36 us for T(4,k) above the Pack
  // (ttile-gen --measure, Intel Xeon, 0.13.0).
  EXPECT_NE(scheme.find("Pack(B,[k,j])"), std::string::npos) << scheme;
}

TEST_F(MatMulTest, EachRunOverloadTakesItsOwnKindOfB) {
  MatMulParams params;
  params.M = params.N = params.K = 8;
  std::vector<float> A(64, 1.0f), B(64, 1.0f), C(64);
  MatMul perRun(params);
  EXPECT_THROW(perRun.run(A.data(), nullptr, C.data()), Error);
  EXPECT_THROW(perRun.setWeights(B.data()), Error);
  perRun.run(A.data(), B.data(), nullptr, C.data());
  EXPECT_EQ(C[0], 8.0f);

  params.constantB = true;
  MatMul constant(params);
  EXPECT_THROW(constant.run(A.data(), B.data(), nullptr, C.data()), Error);
  constant.setWeights(B.data());
  constant.run(A.data(), nullptr, C.data());
  EXPECT_EQ(C[63], 8.0f);
}

//===--- Bad input --------------------------------------------------------===//

/// The message of the error `make` throws, or "" when it throws none.
std::string refusal(const std::function<void()> &make) {
  try {
    make();
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

TEST(MatMulBadInputTest, ParametersThatBreakARuleAreNamed) {
  MatMulParams good;
  good.batch = 2;
  good.M = 4;
  good.N = 5;
  good.K = 6;
  struct Case {
    std::function<void(MatMulParams &)> change;
    const char *named;
  };
  const Case cases[] = {
      {[](MatMulParams &p) { p.M = 0; }, "M (0) must be at least 1"},
      {[](MatMulParams &p) { p.batch = -1; }, "batch (-1)"},
      {[](MatMulParams &p) { p.K = int64_t(1) << 40; }, "K ("},
      {[](MatMulParams &p) { p.lda = -3; }, "lda (-3) must not be negative"},
      {[](MatMulParams &p) { p.lda = 5; }, "lda (5) is smaller than a row of A (6"},
      {[](MatMulParams &p) { p.transA = true, p.lda = 3; }, "lda (3) is smaller than a row of A (4"},
      {[](MatMulParams &p) { p.ldb = 4; }, "ldb (4) is smaller than a row of B (5"},
      {[](MatMulParams &p) { p.transB = true, p.ldb = 5; }, "ldb (5)"},
      {[](MatMulParams &p) { p.ldc = 1; }, "ldc (1) is smaller than a row of C"},
      {[](MatMulParams &p) { p.strideA = 23; }, "strideA (23) makes the batch items of A overlap"},
      {[](MatMulParams &p) { p.strideC = 19; }, "strideC (19) makes the batch items of C overlap"},
      {[](MatMulParams &p) { p.broadcastB = true, p.strideB = 30; }, "strideB (30) is given, but with broadcastB"},
      {[](MatMulParams &p) { p.activation = static_cast<Activation>(9); }, "activation (9)"},
      {[](MatMulParams &p) { p.activation = Activation::Clamp, p.alpha = 1, p.beta = 0; }, "Clamp's alpha"},
      {[](MatMulParams &p) { p.alpha = NAN; }, "alpha (nan) must be a finite number"},
      {[](MatMulParams &p) { p.M = p.K = int64_t(1) << 20; }, "A (its strides included) exceeds 2^40"},
      {[](MatMulParams &p) { p.ldc = int64_t(1) << 31, p.strideC = int64_t(1) << 31; }, "strideC (2147483648) makes"},
  };
  for (const Case &c : cases) {
    MatMulParams params = good;
    c.change(params);
    std::string message = refusal([&] { MatMul matmul(params); });
    EXPECT_NE(message.find(c.named), std::string::npos)
        << "expected \"" << c.named << "\" in \"" << message << "\"";
  }
  // The densest legal strides are accepted.
  good.lda = 6;
  good.strideA = 3 * 6 + 6; // An item of A spans 24 elements.
  EXPECT_EQ(refusal([&] { MatMul matmul(good); }), "");
}

TEST(MatMulBadInputTest, BuffersAreNamedAsMatrices) {
  MatMulParams params;
  params.M = params.N = params.K = 4;
  MatMul matmul(params);
  std::vector<float> A(16), B(16), C(32);
  EXPECT_EQ(refusal([&] { matmul.run(nullptr, B.data(), nullptr, C.data()); }),
            "A is null");
  EXPECT_EQ(refusal([&] { matmul.run(A.data(), nullptr, nullptr, C.data()); }),
            "B is null");
  EXPECT_EQ(refusal([&] { matmul.run(A.data(), B.data(), nullptr, nullptr); }),
            "C is null");
  EXPECT_EQ(refusal([&] { matmul.run(C.data() + 8, B.data(), nullptr, C.data()); }),
            "C overlaps A");
  EXPECT_EQ(refusal([&] {
              matmul.run(RunArgs{A.data(), B.data(), nullptr, C.data(), C.data()});
            }),
            "a residual was given, but this operator was created without one "
            "(residual = false)");
  auto misaligned = reinterpret_cast<const float *>(
      reinterpret_cast<const char *>(A.data()) + 1);
  EXPECT_EQ(refusal([&] { matmul.run(misaligned, B.data(), nullptr, C.data()); }),
            "A is not aligned for float (4 bytes)");
}

} // namespace
} // namespace ttile
