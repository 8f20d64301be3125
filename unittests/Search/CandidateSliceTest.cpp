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

/// Structure only, nothing compiled: the vectors the schemes below are
/// written for, and caches of 32 KiB, 1 MiB and 22 MiB. A scheme a test
/// also runs whose V would cover 16 lanes fixes them at 8 (`V(j,8)`), so
/// that it compiles for any host, AVX2 ones included.
const HostInfo kTarget = HostInfo::avx512();

std::string slicedScheme(const spec::Spec &spec, const std::string &scheme,
                         double minFlops) {
  return scheme::printScheme(
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 1, minFlops)
          .scheme);
}

TEST(CandidateSlice, DropsTheOutermostLoopsAndKeepsTheNestBelow) {
  spec::Spec spec = spec::matmul(96, 64, 32);
  const std::string scheme =
      "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)";
  const double flops = static_cast<double>(spec.flops());
  CandidateSlice slice =
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 1, flops / 4);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
  EXPECT_DOUBLE_EQ(slice.factor, 4);
  EXPECT_FALSE(slice.cutsReductionPasses);
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("i")].size, 24);
  EXPECT_EQ(static_cast<double>(slice.spec.flops()), flops / 4);
  EXPECT_NO_THROW(slice.spec.verify());
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
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
      kTarget, 1, flops / 3);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "T(2,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
  EXPECT_DOUBLE_EQ(slice.factor, 2);
  // An eighth: T(4,i) and T(2,k) go.
  EXPECT_EQ(slicedScheme(
                spec, "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)",
                flops / 8),
            "T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)");
}

TEST(CandidateSlice, SaysWhereItCutsPassesOverTheOutput) {
  // T(2,k) above the accumulators' Hoist: the problem makes two passes over
  // the output, the slice one.
  spec::Spec spec = spec::matmul(96, 64, 32);
  const double flops = static_cast<double>(spec.flops());
  EXPECT_TRUE(sliceCandidate(spec,
                             scheme::parseScheme("T(4,i) T(2,k) T(3,i) T(2,j) "
                                                 "T(16,k) U(8,i) U(2,j) V(j)"),
                             kTarget, 1, flops / 8)
                  .cutsReductionPasses);
  // T(2,k) just above the register tile is inside the Hoist the compiler
  // infers: the problem's accumulators stay in registers across it, and
  // both make one pass.
  spec::Spec small = spec::matmul(12, 64, 32);
  CandidateSlice insideHoist = sliceCandidate(
      small, scheme::parseScheme("T(2,i) T(2,k) T(16,k) U(6,i) U(4,j) V(j)"),
      kTarget, 1, static_cast<double>(small.flops()) / 4);
  EXPECT_EQ(scheme::printScheme(insideHoist.scheme),
            "T(16,k) U(6,i) U(4,j) V(j)");
  EXPECT_FALSE(insideHoist.cutsReductionPasses);
}

TEST(CandidateSlice, MeasuresWholeWhatCannotBeCut) {
  spec::Spec spec = spec::matmul(96, 64, 32);
  const double flops = static_cast<double>(spec.flops());
  const std::string scheme =
      "T(4,i) T(2,k) T(3,i) T(2,j) T(16,k) U(8,i) U(2,j) V(j)";
  // The problem is no longer than the minimum.
  CandidateSlice whole =
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 1, flops);
  EXPECT_EQ(scheme::printScheme(whole.scheme), scheme);
  EXPECT_DOUBLE_EQ(whole.factor, 1);
  EXPECT_EQ(whole.spec.str(), spec.str());
  // With the smallest of minimums every loop above the nest goes.
  EXPECT_EQ(slicedScheme(spec, "T(96,i) T(2,j) T(32,k) U(2,j) V(j)", 1),
            "U(2,j) V(j)");
}

TEST(CandidateSlice, CutsAMaskedDimensionToWholeTilesByIterations) {
  // i = 90 is covered by 96 rows in 4 tiles of 24, the last one masked.
  // A third of the problem keeps 2 tiles, 48 rows inside the 90; the
  // problem lasts 2 such slices (its masked tile runs as a whole one
  // does), not 90 / 48.
  spec::Spec spec = spec::matmul(90, 64, 32);
  const std::string scheme = "T(4,i) T(3,i) T(2,j) T(32,k) U(8,i) U(2,j) V(j)";
  CandidateSlice slice =
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 1,
                     static_cast<double>(spec.flops()) / 3);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "T(2,i) T(3,i) T(2,j) T(32,k) U(8,i) U(2,j) V(j)");
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("i")].size, 48);
  EXPECT_DOUBLE_EQ(slice.factor, 2);
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
  // Once a tile is dropped, the 24 rows left are covered exactly, and the
  // loops below are cut as any other.
  EXPECT_EQ(slicedScheme(spec, scheme, 1), "U(8,i) U(2,j) V(j)");
}

TEST(CandidateSlice, CutsBelowAParallelLoopOfOneIterationPerWorker) {
  // Tpar(2,j) runs whole. On two workers each runs one of its iterations,
  // which reuses nothing another left: T(4,i) below is cut as at the top,
  // and the slice runs on both workers.
  spec::Spec spec = spec::matmul(96, 32, 32);
  const double flops = static_cast<double>(spec.flops());
  const std::string scheme =
      "Tpar(2,j) T(4,i) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)";
  CandidateSlice slice =
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 2, flops / 4);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "Tpar(2,j) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  EXPECT_DOUBLE_EQ(slice.factor, 4);
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
  // It computes the slice's reference on the problem's buffers, on
  // however many workers this machine has.
  measure::TensorBuffers buffers(spec, 3);
  EXPECT_TRUE(compileAndCheck(slice.spec, slice.scheme, buffers, {}));
  // A loop below over the parallel loop's dimension is cut in each
  // worker's share: T(2,j) keeps one of its two tiles of 8 columns in
  // each worker's 16.
  CandidateSlice sameDim = sliceCandidate(
      spec,
      scheme::parseScheme(
          "Tpar(2,j) T(2,j) T(4,i) T(3,i) T(32,k) U(8,i) V(j,8)"),
      kTarget, 2, flops / 8);
  EXPECT_EQ(scheme::printScheme(sameDim.scheme),
            "Tpar(2,j) T(3,i) T(32,k) U(8,i) V(j,8)");
  EXPECT_EQ(sameDim.spec.dims[sameDim.spec.dimId("j")].size, 16);
  EXPECT_DOUBLE_EQ(sameDim.factor, 8);
  EXPECT_TRUE(compileAndCheck(sameDim.spec, sameDim.scheme, buffers, {}));
  // On one worker it is a serial loop, and is cut as one at the top.
  CandidateSlice serial =
      sliceCandidate(spec, scheme::parseScheme(scheme), kTarget, 1, flops / 4);
  EXPECT_EQ(scheme::printScheme(serial.scheme),
            "Tpar(1,j) T(2,i) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  EXPECT_DOUBLE_EQ(serial.factor, 4);
}

TEST(CandidateSlice, CutsAParallelLoopToOneIterationPerWorker) {
  // Tpar(4,j) on two workers keeps two iterations, one per worker, and the
  // loops below are cut as at the top.
  spec::Spec spec = spec::matmul(96, 32, 32);
  const double flops = static_cast<double>(spec.flops());
  CandidateSlice slice = sliceCandidate(
      spec,
      scheme::parseScheme("Tpar(4,j) T(4,i) T(3,i) T(32,k) U(8,i) V(j,8)"),
      kTarget, 2, flops / 8);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "Tpar(2,j) T(3,i) T(32,k) U(8,i) V(j,8)");
  EXPECT_DOUBLE_EQ(slice.factor, 8);
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("j")].size, 16);
  measure::TensorBuffers buffers(spec, 3);
  EXPECT_TRUE(compileAndCheck(slice.spec, slice.scheme, buffers, {}));
  // Tpar(3,j) too: one of its iterations per worker, where on the problem
  // one worker runs two, so the problem lasts two of the slice's loops,
  // and the loops below are cut as at the top again.
  spec::Spec odd = spec::matmul(96, 24, 32);
  CandidateSlice unevenSlice = sliceCandidate(
      odd, scheme::parseScheme("Tpar(3,j) T(4,i) T(3,i) T(32,k) U(8,i) V(j,8)"),
      kTarget, 2, static_cast<double>(odd.flops()) / 4);
  EXPECT_EQ(scheme::printScheme(unevenSlice.scheme),
            "Tpar(2,j) T(2,i) T(3,i) T(32,k) U(8,i) V(j,8)");
  EXPECT_DOUBLE_EQ(unevenSlice.factor, 4);
  EXPECT_TRUE(compileAndCheck(unevenSlice.spec, unevenSlice.scheme,
                              measure::TensorBuffers(odd, 3), {}));
  // Tfused's eight iterations: on eight workers, one each, nothing cut
  // there (T(4,i) dropped below, T(3,i) down to 2). On four, its outer
  // loop keeps four iterations, one per worker, and the inner one one, so
  // that the workers differ in a, as each one's block of the problem's
  // iterations does. On three, which do not divide a's 4, each keeps one
  // of a's and one of j's, and the problem lasts its longest share, three
  // of the eight iterations (ThreadPool.h's blocks of 2, 3 and 3), each as
  // long as two slices, which keep two of T(4,i)'s iterations.
  spec::Spec batched = spec::contraction(
      "aik,kj->aij", {{'a', 4}, {'i', 96}, {'j', 32}, {'k', 32}});
  const std::string fused =
      "Tfused([(a,4),(j,2)]) T(4,i) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)";
  const double batchedFlops = static_cast<double>(batched.flops());
  auto slicedOn = [&](int workers) {
    return sliceCandidate(batched, scheme::parseScheme(fused), kTarget, workers,
                          batchedFlops / 8);
  };
  EXPECT_EQ(scheme::printScheme(slicedOn(8).scheme),
            "Tfused([(a,4),(j,2)]) T(2,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  CandidateSlice onFour = slicedOn(4);
  EXPECT_EQ(scheme::printScheme(onFour.scheme),
            "Tfused([(a,4),(j,1)]) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  EXPECT_DOUBLE_EQ(onFour.factor, 8);
  EXPECT_NO_THROW(
      validateScheme(onFour.scheme, onFour.spec, kTarget.vectorWidth));
  EXPECT_TRUE(compileAndCheck(onFour.spec, onFour.scheme,
                              measure::TensorBuffers(batched, 3), {}));
  CandidateSlice onThree = slicedOn(3);
  EXPECT_EQ(scheme::printScheme(onThree.scheme),
            "Tfused([(a,3),(j,1)]) T(2,i) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  EXPECT_DOUBLE_EQ(onThree.factor, 6);
  EXPECT_TRUE(compileAndCheck(onThree.spec, onThree.scheme,
                              measure::TensorBuffers(batched, 3), {}));
  // Where one iteration per worker is too short, each keeps the fewest
  // that are long enough, and nothing below is cut: for half the problem
  // on two workers, two of each one's four, one of a's and both of j's.
  CandidateSlice several = sliceCandidate(batched, scheme::parseScheme(fused),
                                          kTarget, 2, batchedFlops / 2);
  EXPECT_EQ(scheme::printScheme(several.scheme),
            "Tfused([(a,2),(j,2)]) T(4,i) T(3,i) T(32,k) U(8,i) U(2,j) V(j,8)");
  EXPECT_DOUBLE_EQ(several.factor, 2);
  EXPECT_TRUE(compileAndCheck(several.spec, several.scheme,
                              measure::TensorBuffers(batched, 3), {}));
}

TEST(CandidateSlice, KeepsWhatAWholeLoopAboveReusesAtItsCacheLevel) {
  // The Lambda's parts repeat once each: it runs whole, and across its
  // loops over d A, which has no d, is reused. One iteration touches 208
  // KiB, from the L2. Cutting c leaves 80 KiB there. Cutting g as well
  // would leave 56 KiB, within twice the L1's 32: the reuse might come
  // from a cache it did not (TCCG 20's slices that fit the L3 measured up
  // to 24% fast), so T(2,g) runs whole, and so do the loops below it,
  // whose iterations touch those 56 KiB.
  spec::Spec small = spec::contraction(
      "feg,ecfd->dcg", {{'d', 40}, {'c', 12}, {'g', 64}, {'f', 8}, {'e', 8}});
  CandidateSlice cut = sliceCandidate(
      small,
      scheme::parseScheme("Lambda(d,[(1,2),(1,8)]) T(3,c) T(2,g) T(2,e) "
                          "T(4,c) T(4,e) T(8,f) T(4,d) U(lambda,d) U(2,g) "
                          "V(g)"),
      kTarget, 1, 1);
  EXPECT_EQ(scheme::printScheme(cut.scheme),
            "Lambda(d,[(1,2),(1,8)]) T(2,g) T(2,e) T(4,c) T(4,e) T(8,f) "
            "T(4,d) U(lambda,d) U(2,g) V(g)");
  EXPECT_DOUBLE_EQ(cut.factor, 3);
  // TCCG 30, its Lambda whole again: an iteration of it reads all of A,
  // 90 MB, and 82 MB of B and the output, from memory. Halving e and
  // quartering c leave 60 MB, beyond twice the L3: memory still. Halving e
  // again would leave 35 MB, which the L3 may partly hold: that loop runs
  // whole, and the loops below it, whose iterations touch 35 MB, are not
  // cut.
  spec::Spec tccg30 = spec::contraction(
      "feg,cebf->cbg",
      {{'c', 60}, {'b', 60}, {'g', 4320}, {'f', 72}, {'e', 72}});
  const double tccg30Flops = static_cast<double>(tccg30.flops());
  CandidateSlice slice = sliceCandidate(
      tccg30,
      scheme::parseScheme(
          "Lambda(b,[(1,4),(1,6)]) T(2,e) T(4,c) T(2,e) T(135,g) Pack(A) "
          "T(15,c) T(6,b) Hoist(e,f) T(18,e) T(8,f) U(9,f) U(lambda,b) "
          "U(2,g) V(g)"),
      kTarget, 1, tccg30Flops / 30);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "Lambda(b,[(1,4),(1,6)]) T(2,e) T(135,g) Pack(A) T(15,c) T(6,b) "
            "Hoist(e,f) T(18,e) T(8,f) U(9,f) U(lambda,b) U(2,g) V(g)");
  EXPECT_DOUBLE_EQ(slice.factor, 8);
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
}

TEST(CandidateSlice, CutsALambdasRepetitionsAndTheNestBelow) {
  // Each part keeps one of its repetitions: 17 of b's 60, both microkernels
  // still run. The loops below are then cut as any other, down to the
  // minimum.
  spec::Spec tccg30 = spec::contraction(
      "feg,cebf->cbg",
      {{'c', 60}, {'b', 60}, {'g', 4320}, {'f', 72}, {'e', 72}});
  CandidateSlice slice = sliceCandidate(
      tccg30,
      scheme::parseScheme(
          "Lambda(b,[(3,8),(4,9)]) T(2,e) T(4,c) T(2,e) T(135,g) Pack(A) "
          "T(15,c) Hoist(e,f) T(18,e) T(8,f) U(9,f) U(lambda,b) U(2,g) "
          "V(g)"),
      kTarget, 1, static_cast<double>(tccg30.flops()) / 30);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "Lambda(b,[(1,8),(1,9)]) T(2,e) T(135,g) Pack(A) T(15,c) "
            "Hoist(e,f) T(18,e) T(8,f) U(9,f) U(lambda,b) U(2,g) V(g)");
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("b")].size, 17);
  EXPECT_DOUBLE_EQ(slice.factor, 60.0 / 17 * 8);
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
}

TEST(CandidateSlice, CutsALoopOverALambdasDimensionBelowIt) {
  // TCCG 20 (two of its letters fused as g, as the tuner's spec has them).
  // Each part runs T(4,d): cut to one iteration, it leaves a quarter of
  // each part, 4 + 5 of d's 72 with the Lambda's repetitions cut to one;
  // then c's loops, down to the minimum.
  spec::Spec tccg20 = spec::contraction(
      "feg,ecfd->dcg",
      {{'d', 72}, {'c', 60}, {'g', 4320}, {'f', 60}, {'e', 60}});
  CandidateSlice slice = sliceCandidate(
      tccg20,
      scheme::parseScheme(
          "Lambda(d,[(2,4),(2,5)]) T(4,d) T(3,c) T(20,c) T(15,g) Pack(A) "
          "Hoist(e,f) T(12,e) T(60,f) U(5,e) U(lambda,d) U(18,g) V(g)"),
      kTarget, 1, static_cast<double>(tccg20.flops()) / 40);
  EXPECT_EQ(scheme::printScheme(slice.scheme),
            "Lambda(d,[(1,4),(1,5)]) T(12,c) T(15,g) Pack(A) Hoist(e,f) "
            "T(12,e) T(60,f) U(5,e) U(lambda,d) U(18,g) V(g)");
  EXPECT_EQ(slice.spec.dims[slice.spec.dimId("d")].size, 9);
  EXPECT_DOUBLE_EQ(slice.factor, 8 * 3 * 20.0 / 12);
  EXPECT_NO_THROW(
      scheme::validateScheme(slice.scheme, slice.spec, kTarget.vectorWidth));
  // The same cut on a problem small enough to run: 4 + 5 of i's 36, checked
  // on the problem's buffers against the slice's reference.
  spec::Spec small = spec::matmul(36, 16, 16);
  CandidateSlice cut = sliceCandidate(
      small,
      scheme::parseScheme(
          "Lambda(i,[(2,4),(2,5)]) T(2,i) T(16,k) U(lambda,i) U(2,j) V(j,8)"),
      kTarget, 1, static_cast<double>(small.flops()) / 4);
  EXPECT_EQ(scheme::printScheme(cut.scheme),
            "Lambda(i,[(1,4),(1,5)]) T(16,k) U(lambda,i) U(2,j) V(j,8)");
  EXPECT_EQ(cut.spec.dims[cut.spec.dimId("i")].size, 9);
  EXPECT_DOUBLE_EQ(cut.factor, 4);
  EXPECT_TRUE(compileAndCheck(cut.spec, cut.scheme,
                              measure::TensorBuffers(small, 3), {}));
  // A parallel loop over it is not cut: a worker's share of it would span
  // parts of different sizes. It runs whole, and k below is cut as its
  // reuse allows.
  spec::Spec wide = spec::matmul(72, 16, 16);
  CandidateSlice parallel =
      sliceCandidate(wide,
                     scheme::parseScheme("Lambda(i,[(2,4),(2,5)]) Tpar(4,i) "
                                         "T(16,k) U(lambda,i) U(2,j) V(j,8)"),
                     kTarget, 2, static_cast<double>(wide.flops()) / 16);
  EXPECT_EQ(scheme::printScheme(parallel.scheme),
            "Lambda(i,[(1,4),(1,5)]) Tpar(4,i) T(2,k) U(lambda,i) U(2,j) "
            "V(j,8)");
  EXPECT_DOUBLE_EQ(parallel.factor, 16);
  EXPECT_TRUE(compileAndCheck(
      parallel.spec, parallel.scheme, measure::TensorBuffers(wide, 3),
      {.firstPassUnknown = parallel.cutsReductionPasses}));
}

/// The repetitions of `scheme`'s Lambdas, outermost first.
std::vector<int64_t> lambdaRepetitions(const scheme::Scheme &scheme) {
  std::vector<int64_t> repetitions;
  for (const scheme::Atom &atom : scheme.atoms)
    if (const auto *lambda = std::get_if<scheme::LambdaAtom>(&atom))
      for (const auto &[count, factor] : lambda->parts)
        repetitions.push_back(count);
  return repetitions;
}

/// Slices that cut a masked dimension, and a Lambda.
struct SpecialCuts {
  int masked = 0, lambdas = 0;
};

/// Draws candidates of `spec`'s space, and checks that each slice, run on
/// the problem's own buffers, computes the slice's reference there.
SpecialCuts expectSlicesComputeTheirReference(const spec::Spec &spec,
                                              int draws) {
  SearchSpace space = spaceFor(spec);
  measure::TensorBuffers buffers(spec, 3);
  std::mt19937_64 random(11);
  int cut = 0;
  SpecialCuts special;
  for (int i = 0; i < draws; ++i) {
    scheme::Scheme candidate = space.sample(random);
    CandidateSlice slice =
        sliceCandidate(spec, candidate, host(), space.workers(),
                       static_cast<double>(spec.flops()) / 6);
    SCOPED_TRACE(scheme::printScheme(candidate) + " sliced as " +
                 scheme::printScheme(slice.scheme));
    // The FLOPs' ratio, or more where a masked tile was cut away.
    EXPECT_GE(static_cast<double>(slice.spec.flops()) * slice.factor,
              (1 - 1e-9) * static_cast<double>(spec.flops()));
    EXPECT_TRUE(
        compileAndCheck(slice.spec, slice.scheme, buffers,
                        {.firstPassUnknown = slice.cutsReductionPasses}));
    cut += slice.factor > 1;
    special.masked += static_cast<double>(slice.spec.flops()) * slice.factor >
                      1.001 * static_cast<double>(spec.flops());
    special.lambdas +=
        lambdaRepetitions(slice.scheme) != lambdaRepetitions(candidate);
  }
  EXPECT_GT(cut, 0) << spec.str();
  return special;
}

TEST(CandidateSlice, SlicesComputeTheirReferenceOnTheProblemsBuffers) {
  expectSlicesComputeTheirReference(testing::smallConv(), 12);
  expectSlicesComputeTheirReference(spec::matmul(96, 80, 48), 12);
  SpecialCuts oddSizes =
      expectSlicesComputeTheirReference(spec::matmul(90, 70, 45), 12);
  EXPECT_GT(oddSizes.masked, 0);
  EXPECT_GT(oddSizes.lambdas, 0);
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
