//===- unittests/Scheme/ValidateTest.cpp - Legality of schemes ------------===//
//
// The paper's and thesis' schemes validate; perturbing them breaks exactly
// one rule of Validate.h, and the message names the atom, the rule and the
// numbers.
//
//===----------------------------------------------------------------------===//

#include "Scheme/Validate.h"
#include "Scheme/SchemeParser.h"
#include "Spec/SpecBuilders.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <string>

using namespace ttile;
using namespace ttile::scheme;

namespace {

constexpr int AVX2Width = 8;
constexpr int AVX512Width = 16;

spec::Spec conv(int64_t K, int64_t C, int64_t H, int64_t R,
                int64_t stride = 1) {
  spec::ConvShape shape;
  shape.K = K;
  shape.C = C;
  shape.outH = shape.outW = H;
  shape.R = shape.S = R;
  shape.strideH = shape.strideW = stride;
  return spec::conv2d(shape);
}

/// Yolo9000-13, completed as in paper 4.2.
spec::Spec yolo13() { return conv(512, 256, 34, 3); }
const char *const Yolo13Scheme =
    "T(16,k) Lambda(h,[(2,11),(1,12)]) T(17,w) T(3,s) T(3,r) T(2,w) T(256,c) "
    "U(lambda,h) U(2,k) V(k)";

/// The footprint example of thesis 5.4.3, with T(8,k) as in its table.
spec::Spec thesisConv() { return conv(256, 512, 192, 3); }
const char *const ThesisScheme =
    "T(4,w) T(3,r) T(4,h) T(2,c) T(4,w) T(8,k) T(3,s) T(48,h) T(256,c) "
    "U(12,w) U(2,k) V(k)";

/// 128 = 12*6 + 8*7 (paper Fig. 5).
const char *const Matmul128Scheme =
    "R(j) Lambda(i,[(12,6),(8,7)]) T(64,k) U(lambda,i) U(2,j) V(j)";

TileTree validate(const std::string &text, const spec::Spec &spec,
                  int vectorWidth = AVX512Width) {
  return validateScheme(parseScheme(text), spec, vectorWidth);
}

/// The message of the InvalidScheme error validation throws.
std::string validationError(const std::string &text, const spec::Spec &spec,
                            int vectorWidth = AVX512Width) {
  try {
    validate(text, spec, vectorWidth);
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidScheme);
    return error.what();
  }
  ADD_FAILURE() << "'" << text << "' validated for " << spec.str();
  return "";
}

#define EXPECT_INVALID(text, spec, message)                                    \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, message,                         \
                      validationError(text, spec))

//===--- The published schemes --------------------------------------------===//

TEST(Validate, BlisMatmulOnAVX2) {
  // nc = 256, mc = 96, nk = 256: T(nc/16,j) T(mc/6,i) T(nk,k), with R loops
  // of 2 around each.
  TileTree tree =
      validate("R(j) R(k) R(i) T(16,j) T(16,i) T(256,k) U(6,i) U(2,j) V(j)",
               spec::matmul(192, 512, 512), AVX2Width);
  EXPECT_EQ(tree.root.extent, (std::vector<int64_t>{192, 512, 512}));
  EXPECT_EQ(tree.registerTile, (std::vector<int64_t>{6, 16, 1}));
}

TEST(Validate, AShortVectorDimensionHasFewerLanes) {
  // The narrowest power of two from 4 up that holds the V dimension.
  EXPECT_EQ(vectorLanes(1, AVX512Width), 4);
  for (const auto &[N, lanes] : {std::pair<int64_t, int>{4, 4},
                                 {5, 8},
                                 {8, 8},
                                 {9, 16},
                                 {13, 16},
                                 {64, 16}}) {
    EXPECT_EQ(vectorLanes(N, AVX512Width), lanes) << "N = " << N;
    TileTree tree = validate("R(i) R(k) R(j) V(j)", spec::matmul(3, N, 5));
    EXPECT_EQ(tree.vectorWidth, lanes) << "N = " << N;
  }
  EXPECT_EQ(vectorLanes(4, AVX2Width), 4);
  EXPECT_EQ(vectorLanes(6, AVX2Width), 8);
  // Along the dimension that V names, not another.
  EXPECT_EQ(laneCount(parseScheme("R(j) R(k) V(i)"), spec::matmul(64, 4, 5),
                      AVX512Width),
            16);
}

TEST(Validate, VFixesItsLanesToAPowerOfTwoUpToTheWidest) {
  TileTree tree = validate("R(i) R(k) U(3,j) V(j,8)", spec::matmul(3, 24, 5));
  EXPECT_EQ(tree.vectorWidth, 8);
  EXPECT_EQ(tree.registerTile, (std::vector<int64_t>{1, 24, 1}));
  for (const char *text : {"R(i) R(k) R(j) V(j,6)", "R(i) R(k) R(j) V(j,2)",
                           "R(i) R(k) R(j) V(j,32)"})
    EXPECT_NE(
        validationError(text, spec::matmul(3, 24, 5))
            .find("atom 4 '" + std::string(text + 15) +
                  "': the lanes of V must be a power of two from 4 to 16"),
        std::string::npos)
        << text;
}

TEST(Validate, SearchesNarrowFullRateVectorsWhereAnEighthWouldIdle) {
  // Zen 4: 8 lanes run at the rate of 16.
  for (const auto &[size, lanes] : {std::pair<int64_t, int>{24, 8},
                                    {40, 8},
                                    {56, 8},
                                    {72, 16}, // 80 against 72: a tenth
                                    {1000, 16},
                                    {96, 16}, // no lane idles either way
                                    {13, 16}, // 16 idle lanes: 3 either way
                                    {4, 4}})
    EXPECT_EQ(searchLanes(size, AVX512Width, 8), lanes) << size;
  // Elsewhere the widest vectors run at the full rate.
  EXPECT_EQ(searchLanes(24, AVX512Width, AVX512Width), 16);
  EXPECT_EQ(searchLanes(24, AVX2Width, AVX2Width), 8);
}

TEST(Validate, Matmul128CombinesTwoMicrokernels) {
  TileTree tree = validate(Matmul128Scheme, spec::matmul(128, 128, 64));
  EXPECT_EQ(tree.root.extent, (std::vector<int64_t>{128, 128, 64}));
  EXPECT_EQ(tree.root.loops, (std::vector<std::pair<DimId, int64_t>>{{1, 4}}));
}

TEST(Validate, Yolo13Completion) { validate(Yolo13Scheme, yolo13()); }

TEST(Validate, ThesisFootprintExample) { validate(ThesisScheme, thesisConv()); }

TEST(Validate, HoistPackAndParallelPlacements) {
  spec::Spec matmul = spec::matmul(12, 32, 64);
  validate("Tpar(2,i) R(j) Pack(A,[k,i]) Hoist(k) T(64,k) U(6,i) U(2,j) V(j)",
           matmul);
  validate("Tfused([(i,2),(j,1)]) T(64,k) U(6,i) U(2,j) V(j)", matmul);
}

TEST(Validate, SizeOneDimensionsMayBeLeftOut) {
  // Conv's batch n has size 1 and appears in no scheme above.
  validate("T(4,h) T(4,w) T(8,c) T(3,r) T(3,s) U(1,k) V(k)", conv(16, 8, 4, 3));
}

TEST(Validate, ContractionFromEinsum) {
  validate("R(a) R(c) T(8,b) U(2,a) V(c)",
           spec::contraction("ab,bc->ac", {{'a', 4}, {'b', 8}, {'c', 32}}));
}

//===--- Structural errors, from buildTileTree ----------------------------===//

TEST(Validate, UnknownDimension) {
  EXPECT_INVALID("R(x)", spec::matmul(4, 4, 4),
                 "atom 1 'R(x)': unknown dimension 'x'");
}

TEST(Validate, ParametricUnrollNeedsALambda) {
  EXPECT_INVALID("R(i) R(j) R(k) U(lambda,i)", spec::matmul(4, 4, 4),
                 "atom 4 'U(lambda,i)': U(lambda,i) has no Lambda(i,...) "
                 "above it");
}

//===--- coverage and partial ---------------------------------------------===//

TEST(Validate, CoverageUnderCovered) {
  EXPECT_INVALID("T(16,k) Lambda(h,[(2,11),(1,12)]) T(16,w) T(3,s) T(3,r) "
                 "T(2,w) T(256,c) U(lambda,h) U(2,k) V(k)",
                 yolo13(),
                 "atom 3 'T(16,w)': coverage: dimension w: the tiles cover 32 "
                 "but the size is 34");
}

TEST(Validate, CoverageNamesTheOutermostAtom) {
  EXPECT_INVALID("T(4,w) T(3,r) T(3,h) T(2,c) T(4,w) T(8,k) T(3,s) T(48,h) "
                 "T(256,c) U(12,w) U(2,k) V(k)",
                 thesisConv(),
                 "atom 3 'T(3,h)': coverage: dimension h: the tiles cover 144 "
                 "but the size is 192");
}

TEST(Validate, CoverageMissingDimension) {
  EXPECT_INVALID("R(i) R(j) U(2,j) V(j)", spec::matmul(4, 32, 64),
                 "dimension k (size 64) is not covered by any atom; add R(k) "
                 "or T(64,k)");
  // Not attributed to an atom: no atom is at fault.
  EXPECT_EQ(validationError("R(i) R(j) U(2,j) V(j)", spec::matmul(4, 32, 64))
                .rfind("dimension k", 0),
            0u);
}

TEST(Validate, ReductionsAreNeverPartial) {
  EXPECT_INVALID("R(i) R(j) R(k) T(64,k)", spec::matmul(4, 4, 60),
                 "atom 3 'R(k)': coverage: dimension k: the tiles cover 64 but "
                 "the size is 60; k is a reduction, and only dimensions of the "
                 "output and a reduction along V (whose lanes past its end "
                 "read zeros) may have a partial tile");
}

TEST(Validate, PartialTileOnTheVectorDimension) {
  // K = 13 with V(k): the one register tile along k is masked.
  TileTree tree = validate("T(4,h) T(4,w) T(8,c) T(3,r) T(3,s) U(1,k) V(k)",
                           conv(13, 8, 4, 3));
  EXPECT_EQ(tree.root.extent[*conv(13, 8, 4, 3).findDim("k")], 16);
  // With R, the last of several register tiles is partial.
  validate("R(k) R(h) R(w) R(c) R(r) R(s) U(1,k) V(k)", conv(20, 8, 4, 3));
}

TEST(Validate, PartialTileSmallerThanTheRegisterTile) {
  EXPECT_INVALID("T(2,k) T(4,h) T(4,w) T(8,c) T(3,r) T(3,s) U(1,k) V(k)",
                 conv(13, 8, 4, 3),
                 "atom 1 'T(2,k)': partial: dimension k: the tiles cover 32 "
                 "but the size is 13; a partial tile may exceed the size by "
                 "less than the register tile (16 along k), not by 19");
}

//===--- lambda -----------------------------------------------------------===//

TEST(Validate, LambdaMustCoverItsDimension) {
  EXPECT_INVALID(Yolo13Scheme, conv(512, 256, 35, 3),
                 "atom 2 'Lambda(h,[(2,11),(1,12)])': lambda: Lambda covers "
                 "2*11+1*12 = 34 along h, but the size of h is 35");
}

TEST(Validate, LambdaCoverageCountsTheLoopsAbove) {
  EXPECT_INVALID("R(j) T(2,i) Lambda(i,[(12,6),(8,7)]) T(64,k) U(lambda,i) "
                 "U(2,j) V(j)",
                 spec::matmul(250, 128, 64),
                 "atom 3 'Lambda(i,[(12,6),(8,7)])': lambda: Lambda covers "
                 "12*6+8*7 = 128 along i, 256 with the 2 iterations of the "
                 "loops above, but the size of i is 250");
}

TEST(Validate, LambdaDimensionIsNeverPartial) {
  // Over-covering i by 2 would be a legal partial tile without the Lambda.
  EXPECT_INVALID("R(j) Lambda(i,[(12,6),(9,7)]) T(64,k) U(lambda,i) U(2,j) "
                 "V(j)",
                 spec::matmul(133, 128, 64),
                 "lambda: Lambda covers 12*6+9*7 = 135 along i, but the size "
                 "of i is 133");
}

TEST(Validate, LambdaFactorsMustBeUsed) {
  EXPECT_INVALID("R(j) Lambda(i,[(12,6),(8,7)]) T(64,k) U(6,i) U(2,j) V(j)",
                 spec::matmul(128, 128, 64),
                 "atom 2 'Lambda(i,[(12,6),(8,7)])': lambda: no U(lambda,i) "
                 "below this Lambda instantiates its factors");
}

//===--- vector -----------------------------------------------------------===//

TEST(Validate, VectorIsLast) {
  EXPECT_INVALID("R(i) R(k) V(j) U(1,i)", spec::matmul(16, 16, 16),
                 "atom 3 'V(j)': vector: V must be the last atom, but atom 4 "
                 "'U(1,i)' follows it");
}

TEST(Validate, VectorAtMostOnce) {
  EXPECT_INVALID("R(i) R(k) V(j) V(j)", spec::matmul(16, 32, 16),
                 "atom 4 'V(j)': vector: at most one V per scheme, and atom 3 "
                 "'V(j)' is another");
}

TEST(Validate, VectorAlongAReductionNeedsItContiguousInEveryInput) {
  EXPECT_INVALID("R(i) R(j) V(k)", spec::matmul(16, 16, 16),
                 "atom 3 'V(k)': vector: tensor B has k in its axis 'k', not "
                 "in its contiguous axis 'j'");
  // A matrix times a vector: both end in k, whose lanes are summed.
  spec::Spec dot = spec::contraction("ik,k->i", {{'i', 8}, {'k', 60}});
  EXPECT_NO_THROW(validate("R(i) T(4,k) V(k)", dot));
  // Its tail is masked: k may be partial there, but no other reduction.
  spec::Spec twoReductions =
      spec::contraction("ijk,jk->i", {{'i', 8}, {'j', 3}, {'k', 60}});
  EXPECT_INVALID("R(i) T(4,j) T(4,k) V(k)", twoReductions,
                 "j is a reduction, and only dimensions of the output and a "
                 "reduction along V");
  // A reduction in a sliding window (a planar image's w + s) is not a dot
  // product: its padding would need masks of its own.
  EXPECT_INVALID("R(g) R(h) R(w) R(r) V(s)",
                 spec::conv2d({.K = 1,
                               .C = 1,
                               .outH = 4,
                               .outW = 4,
                               .R = 3,
                               .S = 3,
                               .planar = true}),
                 "s is a reduction (it does not index the output O), and a V "
                 "along one needs it alone in each tensor's contiguous axis, "
                 "but tensor I indexes 'w' otherwise");
}

TEST(Validate, VectorNeedsTheContiguousAxis) {
  EXPECT_INVALID("R(j) R(k) V(i)", spec::matmul(16, 16, 16),
                 "atom 3 'V(i)': vector: tensor C has i in its axis 'i', not "
                 "in its contiguous axis 'j'");
}

TEST(Validate, PackPermutationDecidesTheContiguousAxis) {
  // B[j,k]: j is not contiguous in the user's layout, but is in the packed
  // copy of Pack(B,[k,j]); Pack(B,[j,k]) keeps it strided.
  spec::Spec spec = spec::contraction("ik,jk->ij", {{'i', 8}, {'j', 32}, {'k', 32}});
  EXPECT_NO_THROW(validate("T(2,j) Pack(B,[k,j]) T(8,i) T(32,k) V(j)", spec));
  EXPECT_INVALID("T(2,j) Pack(B,[j,k]) T(8,i) T(32,k) V(j)", spec,
                 "atom 5 'V(j)': vector: tensor B has j in its axis 'j', not "
                 "in its contiguous axis 'k' (as atom 2 'Pack(B,[j,k])' lays "
                 "it out)");
}

TEST(Validate, VectorOverAZeroPaddedAxis) {
  // C[i,j] = A[i,k] * B[k, j-1], B zero-padded along j: vector loads mask
  // the lanes in the padding, or read a packed copy that holds the zeros.
  spec::Spec shifted = spec::matmul(4, 32, 8);
  spec::TensorAxis &column = shifted.tensors[2].axes[1];
  column.index.constant = -1;
  column.zeroPadded = true;
  validate("T(4,i) T(8,k) U(2,j) V(j)", shifted);
  validate("T(4,i) T(8,k) Pack(B) U(2,j) V(j)", shifted);
}

TEST(Validate, VectorCoefficients) {
  // O[i] += A[2i]: consecutive i are two elements apart in A, a strided
  // load; A[3i] is refused. Written out: only planar convolutions strided
  // along w make such specs.
  spec::Spec strided;
  strided.name = "strided";
  strided.dims = {{"i", spec::DimKind::Parallel, 16}};
  strided.tensors = {{"O",
                      spec::TensorRole::Output,
                      spec::ElementType::F32,
                      {{"i", spec::AffineExpr::of(0), 16}}},
                     {"A",
                      spec::TensorRole::Input,
                      spec::ElementType::F32,
                      {{"x", spec::AffineExpr::of(0, 2), 31}}}};
  validate("V(i)", strided);
  strided.tensors[1].axes[0] = {"x", spec::AffineExpr::of(0, 3), 46};
  EXPECT_INVALID("V(i)", strided,
                 "atom 1 'V(i)': vector: tensor A indexes its contiguous axis "
                 "with 3*i, but vector loads take coefficient 1 or 2");
  // Stores are contiguous.
  strided.tensors[1].axes[0] = {"x", spec::AffineExpr::of(0), 16};
  strided.tensors[0].axes[0] = {"i", spec::AffineExpr::of(0, 2), 31};
  EXPECT_INVALID("V(i)", strided,
                 "atom 1 'V(i)': vector: tensor O indexes its contiguous axis "
                 "with 2*i, but vector stores and added tensors take "
                 "coefficient 1");
}

//===--- unroll and R -----------------------------------------------------===//

TEST(Validate, UnrollIsInnermost) {
  EXPECT_INVALID("R(j) R(i) U(2,i) T(64,k) V(j)", spec::matmul(4, 32, 64),
                 "atom 4 'T(64,k)': unroll: only U and V may follow the first "
                 "U, atom 3 'U(2,i)'");
}

TEST(Validate, RAtMostOncePerDimension) {
  EXPECT_INVALID("R(i) R(i) R(j) R(k)", spec::matmul(4, 4, 4),
                 "atom 2 'R(i)': R: R(i) may appear only once, and atom 1 "
                 "'R(i)' is another");
}

TEST(Validate, RAboveEveryAtomOnItsDimension) {
  EXPECT_INVALID("T(2,i) R(i) R(j) R(k)", spec::matmul(4, 4, 4),
                 "atom 2 'R(i)': R: R(i) must be above every other atom on i, "
                 "but atom 1 'T(2,i)' is above it");
}

//===--- hoist ------------------------------------------------------------===//

TEST(Validate, HoistAtMostOnce) {
  EXPECT_INVALID("R(i) R(j) Hoist(k) Hoist(k) R(k)", spec::matmul(4, 4, 4),
                 "atom 4 'Hoist(k)': hoist: at most one Hoist per scheme, and "
                 "atom 3 'Hoist(k)' is another");
}

TEST(Validate, HoistOnlyReductions) {
  EXPECT_INVALID("R(i) Hoist(j,k) R(j) R(k)", spec::matmul(4, 4, 4),
                 "atom 2 'Hoist(j,k)': hoist: j indexes the output C; only "
                 "reductions, absent from the output, can be hoisted");
}

TEST(Validate, HoistOnlyOverItsLoops) {
  EXPECT_INVALID("R(i) Hoist(k) R(j) T(64,k) U(6,i) U(2,j) V(j)",
                 spec::matmul(12, 32, 64),
                 "atom 3 'R(j)': hoist: every loop below atom 2 'Hoist(k)' "
                 "must iterate a hoisted dimension, but this one iterates j");
}

//===--- pack -------------------------------------------------------------===//

TEST(Validate, PackOnlyInputs) {
  EXPECT_INVALID("R(i) R(j) Pack(C) R(k)", spec::matmul(4, 4, 4),
                 "atom 3 'Pack(C)': pack: C is the output; only input tensors "
                 "can be packed");
}

TEST(Validate, PackNotBelowHoist) {
  EXPECT_INVALID("R(i) R(j) Hoist(k) Pack(A) R(k)", spec::matmul(4, 4, 4),
                 "atom 4 'Pack(A)': pack: a Pack cannot be below atom 3 "
                 "'Hoist(k)'");
}

TEST(Validate, PackNotBelowUnroll) {
  EXPECT_INVALID("R(i) R(k) U(1,j) Pack(A) V(j)", spec::matmul(4, 16, 4),
                 "atom 4 'Pack(A)': pack: a Pack cannot be below atom 3 "
                 "'U(1,j)'");
}

TEST(Validate, PackUnknownTensor) {
  EXPECT_INVALID("R(i) R(j) Pack(Z) R(k)", spec::matmul(4, 4, 4),
                 "atom 3 'Pack(Z)': unknown tensor 'Z'");
}

//===--- parallel ---------------------------------------------------------===//

TEST(Validate, ParallelAtMostOnce) {
  EXPECT_INVALID("Tpar(2,i) Tpar(2,j) R(k) U(2,i) U(2,j)",
                 spec::matmul(4, 4, 4),
                 "atom 2 'Tpar(2,j)': parallel: at most one Tpar or Tfused per "
                 "scheme, and atom 1 'Tpar(2,i)' is another");
}

TEST(Validate, ParallelOnlyOutputDimensions) {
  EXPECT_INVALID("Tfused([(i,2),(k,2)]) R(j) U(2,i) U(2,k)",
                 spec::matmul(4, 4, 4),
                 "atom 1 'Tfused([(i,2),(k,2)])': parallel: k is a reduction "
                 "(it does not index the output C), so its iterations cannot "
                 "run in parallel");
}

TEST(Validate, ParallelAboveHoist) {
  EXPECT_INVALID("R(j) Hoist(k) Tpar(4,i) R(k)", spec::matmul(4, 4, 4),
                 "atom 3 'Tpar(4,i)': parallel: a parallel loop cannot be "
                 "below atom 2 'Hoist(k)'");
}

//===--- size -------------------------------------------------------------===//

TEST(Validate, RegisterTileSize) {
  // Vectors count once: 64 rows of 32 vectors are 2048 points.
  EXPECT_INVALID("R(k) U(64,i) U(32,j) V(j)", spec::matmul(64, 512, 4),
                 "atom 2 'U(64,i)': size: the register tile i=64 x j=32 "
                 "vectors has 2048 points, more than the limit of 1024");
  EXPECT_NO_THROW(validate("R(k) U(32,i) U(32,j) V(j)", spec::matmul(32, 512, 4)));
}

TEST(Validate, RegisterTileSizeInEveryLambdaPart) {
  // The first part's tile is small; the second's is too big.
  EXPECT_INVALID("R(k) Lambda(i,[(1,2),(1,40)]) U(lambda,i) U(32,j) V(j)",
                 spec::matmul(42, 512, 4),
                 "atom 3 'U(lambda,i)': size: the register tile i=40 x j=32 "
                 "vectors has 1280 points");
}

} // namespace
