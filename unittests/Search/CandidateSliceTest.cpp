//===- unittests/Search/CandidateSliceTest.cpp - Measuring on a slice -----===//

#include "SmallConv.h"

#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Search/CandidateSlice.h"
#include "Search/Tuner.h"
#include "Spec/SpecBuilders.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

#include <random>

namespace ttile::search {
namespace {

/// Structure only, nothing compiled: the width the schemes below are
/// written for.
constexpr int kWidth = 16;

std::string slicedScheme(const spec::Spec &spec, const std::string &scheme,
                         double minFlops) {
  return scheme::printScheme(
      sliceCandidate(spec, scheme::parseScheme(scheme), kWidth, minFlops)
          .scheme);
}

TEST(CandidateSlice, DropsTheOutermostLoopsAndKeepsTheNestBelow) {
  spec::Spec spec = spec::matmul(96, 64, 32);
  const std::string scheme =
      "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)";
  const double flops = static_cast<double>(spec.flops());
  CandidateSlice slice =
      sliceCandidate(spec, scheme::parseScheme(scheme), kWidth, flops / 4);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
  EXPECT_DOUBLE_EQ(slice.factor, 4);
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("i")].size, 24);
  EXPECT_EQ(static_cast<double>(slice.spec.flops()), flops / 4);
  EXPECT_NO_THROW(slice.spec.verify());
  EXPECT_NO_THROW(scheme::validateScheme(slice.scheme, slice.spec, kWidth));
  // The slice's tensors keep the problem's strides: A's rows stay 32
  // floats apart, the output's 64, while B, which has no i, stays dense.
  const spec::Tensor &a = slice.spec.tensors[*slice.spec.findTensor("A")];
  EXPECT_EQ(a.axes[0].extent, 24);
  EXPECT_EQ(a.strides(), (std::vector<int64_t>{32, 1}));
  EXPECT_EQ(slice.spec.output().strides(), (std::vector<int64_t>{64, 1}));
  EXPECT_FALSE(
      slice.spec.tensors[*slice.spec.findTensor("B")].hasExplicitStrides());
}

TEST(CandidateSlice, KeepsTheFewestIterationsOfTheNextLoop) {
  spec::Spec spec = spec::matmul(96, 64, 32);
  const double flops = static_cast<double>(spec.flops());
  // A third of the problem needs 2 of T(4,i)'s 4 iterations.
  CandidateSlice slice = sliceCandidate(
      spec,
      scheme::parseScheme(
          "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)"),
      kWidth, flops / 3);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "T(2,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
  EXPECT_DOUBLE_EQ(slice.factor, 2);
  // An eighth: T(4,i) and T(2,k) go.
  EXPECT_EQ(slicedScheme(
                spec, "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)",
                flops / 8),
            "T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
}

TEST(CandidateSlice, MeasuresWholeWhatCannotBeCut) {
  spec::Spec spec = spec::matmul(96, 64, 32);
  const double flops = static_cast<double>(spec.flops());
  const std::string scheme =
      "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)";
  // The problem is no longer than the minimum.
  CandidateSlice whole =
      sliceCandidate(spec, scheme::parseScheme(scheme), kWidth, flops);
  EXPECT_EQ(scheme::printScheme(whole.scheme), scheme);
  EXPECT_DOUBLE_EQ(whole.factor, 1);
  EXPECT_EQ(whole.spec.str(), spec.str());
  // With the smallest of minimums every loop above the nest goes.
  EXPECT_EQ(slicedScheme(spec, "T(96,i) T(2,j) T(32,k) U(2,j) V(j)", 1),
            "U(2,j) V(j)");
  // i = 90 is covered by 96 rows, the last tile masked: never cut.
  EXPECT_EQ(slicedScheme(spec::matmul(90, 64, 32),
                         "T(4,i) T(3,i) T(2,j) T(32,k) U(8,i) U(2,j) V(j)", 1),
            "T(4,i) T(3,i) T(2,j) T(32,k) U(8,i) U(2,j) V(j)");
}

TEST(CandidateSlice, NeverShrinksWhatAWholeLoopAboveReuses) {
  // The Lambda's loops over d run whole; across them A, which has no d, is
  // reused. Cutting g or e would shrink A below them, and its reuse with
  // it (into a cache it did not fit, TCCG 20's slices measured up to 24%
  // fast); cutting c, which A does not have, leaves A's footprint alone.
  // Below the whole T(2,g), c cannot be cut either: B, which has no g, has
  // c.
  spec::Spec spec = spec::contraction(
      "feg,ecfd->dcg", {{'d', 40}, {'c', 12}, {'g', 64}, {'f', 8}, {'e', 8}});
  EXPECT_EQ(slicedScheme(spec,
                         "Lambda(d,[(1,8),(2,16)]) T(3,c) T(2,g) T(2,e) "
                         "T(4,c) T(4,e) T(8,f) U(lambda,d) U(2,g) V(g)",
                         1),
            "Lambda(d,[(1,8),(2,16)]) T(2,g) T(2,e) T(4,c) T(4,e) T(8,f) "
            "U(lambda,d) U(2,g) V(g)");
}

/// Draws candidates of `spec`'s space, and checks that each slice, run on
/// the problem's own buffers, computes the slice's reference there.
void expectSlicesComputeTheirReference(const spec::Spec &spec, int draws) {
  SearchSpace space = spaceFor(spec);
  measure::TensorBuffers buffers(spec, 3);
  std::mt19937_64 random(11);
  int cut = 0;
  for (int i = 0; i < draws; ++i) {
    scheme::Scheme candidate = space.sample(random);
    CandidateSlice slice =
        sliceCandidate(spec, candidate, host().vectorWidth,
                       static_cast<double>(spec.flops()) / 6);
    SCOPED_TRACE(scheme::printScheme(candidate) + " sliced as " +
                 scheme::printScheme(slice.scheme));
    EXPECT_NEAR(static_cast<double>(slice.spec.flops()) * slice.factor,
                static_cast<double>(spec.flops()), 1e-6 * spec.flops());
    EXPECT_TRUE(compileAndCheck(slice.spec, slice.scheme, buffers));
    cut += slice.factor > 1;
  }
  EXPECT_GT(cut, 0) << spec.str();
}

TEST(CandidateSlice, SlicesComputeTheirReferenceOnTheProblemsBuffers) {
  expectSlicesComputeTheirReference(testing::smallConv(), 12);
  expectSlicesComputeTheirReference(spec::matmul(96, 80, 48), 12);
  spec::MatMulShape strided;
  strided.batch = 3;
  strided.M = 24;
  strided.N = 40;
  strided.K = 20;
  strided.lda = 24;
  strided.bias = true;
  strided.constantB = true;
  expectSlicesComputeTheirReference(spec::matmul(strided), 12);
  expectSlicesComputeTheirReference(
      spec::contraction("feg,ecfd->dcg",
                        {{'d', 21}, {'c', 12}, {'g', 96}, {'f', 10}, {'e', 6}}),
      12);
}

} // namespace
} // namespace ttile::search
