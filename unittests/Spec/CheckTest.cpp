//===- unittests/Spec/CheckTest.cpp - Checking outputs --------------------===//

#include "Spec/Check.h"
#include "Spec/Reference.h"
#include "Spec/SpecBuilders.h"

#include "SpecTestUtil.h"

#include <cmath>
#include <limits>

namespace ttile::spec {
namespace {

using test::Buffers;
using test::throwsErrorWith;

/// A spec and its buffers, the output set to the reference result.
struct Solved {
  explicit Solved(Spec solvedSpec)
      : spec(std::move(solvedSpec)), buffers(spec) {
    runReference(spec, buffers.all());
  }
  CheckResult check(const CheckOptions &options = {}) const {
    return checkOutput(spec, buffers.allConst(), options);
  }

  Spec spec;
  Buffers buffers;
};

Spec smallConv() {
  return conv2d({.N = 1, .K = 4, .C = 3, .outH = 3, .outW = 6, .R = 2, .S = 2});
}

TEST(CheckTest, ExactMatchPasses) {
  Solved solved(smallConv());
  CheckResult result = solved.check();
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.pointsChecked, 3 * 6 * 4);
  EXPECT_EQ(result.mismatchCount, 0);
  EXPECT_TRUE(result.firstMismatches.empty());
  EXPECT_EQ(result.report(solved.spec), "all 72 points match");
}

TEST(CheckTest, ReportsAPerturbedElementAtItsCoordinates) {
  Solved solved(smallConv());
  // O[0, 1, 4, 2] in the NHWK output of H=3, W=6, K=4.
  int64_t offset = (1 * 6 + 4) * 4 + 2;
  float expected = solved.buffers[0][offset];
  solved.buffers[0][offset] += 0.5f;
  CheckResult result = solved.check();
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.pointsChecked, 72);
  EXPECT_EQ(result.mismatchCount, 1);
  ASSERT_EQ(result.firstMismatches.size(), 1u);
  const Mismatch &mismatch = result.firstMismatches[0];
  EXPECT_EQ(mismatch.coords, (std::vector<int64_t>{0, 1, 4, 2}));
  EXPECT_EQ(mismatch.expected, expected);
  EXPECT_EQ(mismatch.actual, expected + 0.5f);
  EXPECT_EQ(result.report(solved.spec)
                .rfind("1 of 72 points differ; first: "
                       "O[0,1,4,2] expected ",
                       0),
            0u)
      << result.report(solved.spec);
}

TEST(CheckTest, ReportFormat) {
  CheckResult result;
  result.ok = false;
  result.pointsChecked = 512;
  result.mismatchCount = 3;
  result.firstMismatches = {{{0, 2, 5, 17}, 1.25f, 0.5f},
                            {{0, 3, 0, 1}, 0.1f, -2.0f}};
  EXPECT_EQ(result.report(smallConv()),
            "3 of 512 points differ; first: O[0,2,5,17] expected 1.25 got "
            "0.5; O[0,3,0,1] expected 0.1 got -2; ...");
}

TEST(CheckTest, KeepsAtMostMaxReportedMismatches) {
  Solved solved(smallConv());
  for (float &element : solved.buffers[0])
    element += 1;
  CheckOptions options;
  options.maxReported = 3;
  CheckResult result = solved.check(options);
  EXPECT_EQ(result.mismatchCount, 72);
  ASSERT_EQ(result.firstMismatches.size(), 3u);
  EXPECT_EQ(result.firstMismatches[2].coords,
            (std::vector<int64_t>{0, 0, 0, 2}));
}

TEST(CheckTest, NanIsAlwaysAMismatch) {
  Solved solved(smallConv());
  solved.buffers[0][5] = std::numeric_limits<float>::quiet_NaN();
  CheckOptions lax;
  lax.relTol = 1e6;
  lax.absTol = 1e6;
  CheckResult result = solved.check(lax);
  EXPECT_EQ(result.mismatchCount, 1);
  ASSERT_EQ(result.firstMismatches.size(), 1u);
  EXPECT_TRUE(std::isnan(result.firstMismatches[0].actual));
  EXPECT_NE(result.report(solved.spec).find("got nan"), std::string::npos);
}

TEST(CheckTest, SamplingFindsCorruptedOutput) {
  // 512 x 256 = 131072 elements, over the default full-check limit.
  Solved solved(matmul(512, 256, 4));
  CheckResult clean = solved.check();
  EXPECT_TRUE(clean.ok);
  EXPECT_EQ(clean.pointsChecked, 512);
  EXPECT_EQ(clean.report(solved.spec), "all 512 points match");

  // Corrupting half the points, a miss by all 512 samples has probability
  // 2^-512.
  std::vector<float> &output = solved.buffers[0];
  for (size_t i = 0; i < output.size(); i += 2)
    output[i] += 1;
  CheckResult corrupted = solved.check();
  EXPECT_FALSE(corrupted.ok);
  EXPECT_EQ(corrupted.pointsChecked, 512);
  EXPECT_GT(corrupted.mismatchCount, 0);
  ASSERT_FALSE(corrupted.firstMismatches.empty());
  // The reported coordinates are those of a corrupted (even) element.
  const std::vector<int64_t> &coords = corrupted.firstMismatches[0].coords;
  EXPECT_EQ((coords[0] * 256 + coords[1]) % 2, 0);
  EXPECT_FLOAT_EQ(corrupted.firstMismatches[0].actual,
                  corrupted.firstMismatches[0].expected + 1);
}

TEST(CheckTest, SamplingIsDeterministicPerSeed) {
  Solved solved(matmul(512, 256, 2));
  std::vector<float> &output = solved.buffers[0];
  for (size_t i = 0; i < output.size(); i += 3)
    output[i] = -100;
  CheckOptions options;
  options.samples = 64;
  CheckResult first = solved.check(options);
  CheckResult again = solved.check(options);
  EXPECT_EQ(first.pointsChecked, 64);
  EXPECT_EQ(first.mismatchCount, again.mismatchCount);
  EXPECT_EQ(first.firstMismatches[0].coords, again.firstMismatches[0].coords);
  options.seed += 1;
  EXPECT_NE(solved.check(options).firstMismatches[0].coords,
            first.firstMismatches[0].coords);
}

TEST(CheckTest, ConvPassesInSamplingMode) {
  Solved solved(
      conv2d({.N = 1, .K = 32, .C = 8, .outH = 56, .outW = 56, .R = 3, .S = 3}));
  ASSERT_GT(solved.spec.output().numElements(), CheckOptions().fullCheckLimit);
  CheckResult result = solved.check();
  EXPECT_TRUE(result.ok) << result.report(solved.spec);
  EXPECT_EQ(result.pointsChecked, 512);
}

/// C[0,0] = sum_k A[0,k] * B[k,0] with B all ones, so the products are the
/// elements of A.
CheckResult checkDot(std::vector<float> a, float actual) {
  Spec spec = matmul(1, 1, static_cast<int64_t>(a.size()));
  std::vector<float> b(a.size(), 1.0f);
  const float *buffers[] = {&actual, a.data(), b.data()};
  return checkOutput(spec, buffers);
}

TEST(CheckTest, ToleranceScalesWithTheTermsNotTheResult) {
  // 1e4 + 1 - 1e4 = 1, with terms of magnitude 20001: float arithmetic in
  // another order may lose the 1 entirely, which is no bug.
  EXPECT_TRUE(checkDot({1e4f, 1, -1e4f}, 1.001f).ok);
  EXPECT_TRUE(checkDot({1e4f, 1, -1e4f}, 0.0f).ok);
  // relTol * 20001 + absTol is about 2.0001.
  EXPECT_TRUE(checkDot({1e4f, 1, -1e4f}, 2.99f).ok);
  EXPECT_FALSE(checkDot({1e4f, 1, -1e4f}, 3.01f).ok);
  // Without cancellation the same error is a mismatch.
  EXPECT_FALSE(checkDot({0, 1, 0}, 1.001f).ok);
  EXPECT_TRUE(checkDot({0, 1, 0}, 1.00005f).ok);
  // absTol covers results near zero.
  EXPECT_TRUE(checkDot({0, 0, 0}, 5e-7f).ok);
  EXPECT_FALSE(checkDot({0, 0, 0}, 2e-6f).ok);
}

TEST(CheckTest, ReluIsComparedAfterTheActivation) {
  Spec spec = matmul(1, 1, 2);
  spec.epilogue.activation = Activation::ReLU;
  std::vector<float> a = {1, -3}, b = {1, 1};
  float zero = 0, negative = -2;
  const float *good[] = {&zero, a.data(), b.data()};
  const float *bad[] = {&negative, a.data(), b.data()};
  EXPECT_TRUE(checkOutput(spec, good).ok);
  EXPECT_FALSE(checkOutput(spec, bad).ok);
}

TEST(CheckTest, RejectsBadArguments) {
  Solved solved(smallConv());
  CheckOptions options;
  options.samples = 0;
  EXPECT_TRUE(throwsErrorWith([&] { solved.check(options); },
                              "CheckOptions.samples must be >= 1, got 0"));
  options = {};
  options.relTol = -1;
  EXPECT_TRUE(throwsErrorWith([&] { solved.check(options); },
                              "CheckOptions.relTol must be >= 0"));
  const float *noOutput[] = {nullptr, solved.buffers[1].data(),
                             solved.buffers[2].data()};
  EXPECT_TRUE(throwsErrorWith([&] { checkOutput(solved.spec, noOutput); },
                              "checkOutput: the output buffer is null"));
  const float *tooFew[] = {solved.buffers[0].data()};
  EXPECT_TRUE(throwsErrorWith([&] { checkOutput(solved.spec, tooFew); },
                              "has 3 tensors but 1 buffers"));
}

} // namespace
} // namespace ttile::spec
