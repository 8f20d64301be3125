//===- unittests/Search/FamilyBindingTest.cpp - Families by structure -----===//

#include "PaperLayers.h"

#include "Search/FamilyBinding.h"
#include "Spec/SpecBuilders.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ttile::search {
namespace {

/// `spec` with every dimension and axis renamed "x<name>" and the spec
/// itself called otherwise: what binds it must be its structure alone.
spec::Spec renamed(spec::Spec spec) {
  spec.name = "renamed";
  for (spec::Dim &dim : spec.dims)
    dim.name = "x" + dim.name;
  for (spec::Tensor &tensor : spec.tensors)
    for (spec::TensorAxis &axis : tensor.axes)
      axis.name = "x" + axis.name;
  return spec;
}

std::vector<std::string> prefixed(std::vector<std::string> names) {
  for (std::string &name : names)
    name = "x" + name;
  return names;
}

/// The family of `spec` and of its renamed copy: the same family, over
/// the renamed dimensions.
MicrokernelFamily expectBoundByStructure(const spec::Spec &spec) {
  MicrokernelFamily family = familyOf(spec);
  MicrokernelFamily other = familyOf(renamed(spec));
  EXPECT_EQ(other.name, family.name);
  EXPECT_EQ(other.unrolled, prefixed(family.unrolled));
  EXPECT_EQ(other.outputDims, prefixed(family.outputDims));
  EXPECT_EQ(other.windowDims, prefixed(family.windowDims));
  EXPECT_EQ(other.vectorDim, "x" + family.vectorDim);
  EXPECT_EQ(other.combinationDim, "x" + family.combinationDim);
  EXPECT_EQ(other.reuseDim, "x" + family.reuseDim);
  return family;
}

void expectOwnNames(const MicrokernelFamily &bound,
                    const MicrokernelFamily &own) {
  EXPECT_EQ(bound.name, own.name);
  EXPECT_EQ(bound.unrolled, own.unrolled);
  EXPECT_EQ(bound.vectorDim, own.vectorDim);
  EXPECT_EQ(bound.combinationDim, own.combinationDim);
  EXPECT_EQ(bound.reuseDim, own.reuseDim);
}

TEST(FamilyBinding, ConvolutionsBindTheConv2dFamily) {
  expectOwnNames(expectBoundByStructure(testing::paperLayers()[0].spec()),
                 MicrokernelFamily::conv2d());
  // Strided, padded, dilated, batched, with bias and residual.
  expectOwnNames(expectBoundByStructure(spec::conv2d({.N = 2,
                                                      .K = 32,
                                                      .C = 8,
                                                      .outH = 5,
                                                      .outW = 6,
                                                      .R = 3,
                                                      .S = 3,
                                                      .strideH = 2,
                                                      .dilationW = 2,
                                                      .padTop = 1,
                                                      .padLeft = 2,
                                                      .bias = true,
                                                      .residual = true})),
                 MicrokernelFamily::conv2d());
  // Pointwise: still two sliding axes, of windows 1.
  expectOwnNames(expectBoundByStructure(
                     spec::conv2d({.K = 64, .C = 64, .outH = 7, .outW = 7})),
                 MicrokernelFamily::conv2d());
  // Grouped with several channels per group: g is tiled above.
  expectOwnNames(
      expectBoundByStructure(spec::conv2d({.K = 8, .C = 8, .groups = 2})),
      MicrokernelFamily::conv2d());
}

TEST(FamilyBinding, DepthwiseConvolutionsBindTheDepthwiseFamily) {
  const spec::ConvShape shape{.K = 64,
                              .C = 64,
                              .outH = 7,
                              .outW = 9,
                              .R = 3,
                              .S = 5,
                              .padTop = 1,
                              .padLeft = 2,
                              .padBottom = 1,
                              .padRight = 2,
                              .groups = 64};
  expectOwnNames(expectBoundByStructure(spec::conv2d(shape)),
                 MicrokernelFamily::depthwise());
  spec::ConvShape multiplier = shape;
  multiplier.K = 128;
  expectOwnNames(expectBoundByStructure(spec::conv2d(multiplier)),
                 MicrokernelFamily::depthwise());
}

TEST(FamilyBinding, PlanarDepthwiseConvolutionsBindThePlanarFamily) {
  MicrokernelFamily family =
      expectBoundByStructure(spec::conv2d({.N = 2,
                                           .K = 24,
                                           .C = 24,
                                           .outH = 7,
                                           .outW = 30,
                                           .R = 5,
                                           .S = 3,
                                           .strideH = 2,
                                           .dilationW = 2,
                                           .padTop = 2,
                                           .padLeft = 1,
                                           .groups = 24,
                                           .bias = true,
                                           .residual = true,
                                           .planar = true}));
  expectOwnNames(family, MicrokernelFamily::planar());
  EXPECT_EQ(family.windowDims, (std::vector<std::string>{"s"}));
  EXPECT_TRUE(family.loadBound);
}

TEST(FamilyBinding, MatmulsAndContractionsBindTheMatmulFamily) {
  expectOwnNames(expectBoundByStructure(spec::matmul(4, 4, 4)),
                 MicrokernelFamily::matmul());
  expectOwnNames(expectBoundByStructure(spec::matmul({.batch = 3,
                                                      .M = 8,
                                                      .N = 16,
                                                      .K = 4,
                                                      .transA = true,
                                                      .transB = true,
                                                      .bias = true})),
                 MicrokernelFamily::matmul());
  MicrokernelFamily contraction = expectBoundByStructure(
      spec::contraction("ab,bc->ac", {{'a', 2}, {'b', 2}, {'c', 2}}));
  EXPECT_EQ(contraction.name, "matmul");
  EXPECT_EQ(contraction.unrolled, (std::vector<std::string>{"b", "a", "c"}));
}

/// The contraction `einsum` with every letter of size 4.
spec::Spec contraction(const char *einsum) {
  std::map<char, int64_t> sizes;
  for (const char *c = einsum; *c; ++c)
    if (std::isalpha(static_cast<unsigned char>(*c)))
      sizes[*c] = 4;
  return spec::contraction(einsum, sizes);
}

TEST(FamilyBinding, MatrixTimesVectorBindsTheDotFamily) {
  MicrokernelFamily dot = expectBoundByStructure(contraction("ak,k->a"));
  EXPECT_EQ(dot.name, "dot");
  EXPECT_EQ(dot.unrolled, (std::vector<std::string>{"a", "k"}));
  EXPECT_EQ(dot.vectorDim, "k");
  EXPECT_EQ(dot.reuseDim, "k");
  // The vector first, batch indices, further reductions: the same.
  for (const char *einsum : {"k,ik->i", "bik,bk->bi", "ijk,jk->i", "bk,bk->b"})
    EXPECT_EQ(familyOf(contraction(einsum)).name, "dot") << einsum;
  // A matrix with N = 1 drops j, and B is a vector.
  EXPECT_EQ(
      familyOf(spec::matmul({.M = 8, .N = 1, .K = 32, .bias = true})).name,
      "dot");
  EXPECT_EQ(familyOf(spec::matmul(
                         {.M = 8, .N = 1, .K = 32, .transB = true, .ldb = 40}))
                .name,
            "dot");
  // A fully connected layer on one image: x (1 x K) times W^T (W: N x K).
  EXPECT_EQ(
      familyOf(spec::matmul({.M = 1, .N = 8, .K = 32, .transB = true})).name,
      "dot");
  // Not where the other operand has output indices of its own (Q K^T:
  // rows reused against rows), nor where k is not contiguous in both.
  EXPECT_EQ(familyOf(contraction("ik,jk->ij")).name, "matmul");
  EXPECT_EQ(familyOf(spec::matmul({.M = 8, .N = 1, .K = 32, .ldb = 2})).name,
            "matmul");
  EXPECT_FALSE(dotProduct(contraction("ik,kj->ij")));
  EXPECT_FALSE(dotProduct(contraction("ki,k->i")));
}

// The output's last index ends both inputs too: each lane is a product of
// its own, A's rows i, B's rows j, summed over k.
TEST(FamilyBinding, BatchIndicesLastEverywhereBindTheLanewiseFamily) {
  MicrokernelFamily lanewise =
      expectBoundByStructure(contraction("xkb,kyb->xyb"));
  EXPECT_EQ(lanewise.name, "lanewise");
  EXPECT_EQ(lanewise.unrolled, (std::vector<std::string>{"x", "y", "b"}));
  EXPECT_EQ(lanewise.vectorDim, "b");
  EXPECT_EQ(lanewise.combinationDim, "x");
  EXPECT_EQ(lanewise.reuseDim, "k");
  // Another batch index, anywhere else.
  EXPECT_EQ(familyOf(contraction("zikb,zkjb->izjb")).name, "lanewise");
}

/// Expects familyOf(spec) to throw a ttile::Error whose message has `text`.
void expectRefused(const spec::Spec &spec, const std::string &text) {
  try {
    familyOf(spec);
    ADD_FAILURE() << "no error; expected \"" << text << "\"";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos)
        << error.what();
  }
}

TEST(FamilyBinding, RefusesWhatNoFamilyFits) {
  // A batch index last in the output, not in A.
  expectRefused(contraction("bij,bjk->ikb"),
                "the output's last index 'b' is in both inputs, but not last "
                "in A");
  // Each lane an outer product; ContractionProblem adds k.
  expectRefused(contraction("ib,jb->ijb"),
                "no index plays the lanewise microkernel's k (a reduction "
                "index of both inputs)");
  // Each lane a row times a number; ContractionProblem adds j.
  expectRefused(contraction("ikb,kb->ib"),
                "no index plays the lanewise microkernel's j (an output "
                "index of B only)");
  expectRefused(contraction("ab,bc,cd->ad"),
                "it has 3 inputs; every family multiplies two");
  // A scalar output; ContractionProblem gives it an index of size 1.
  expectRefused(contraction("ij,ij->"),
                "its output is a scalar, with no index to tile");
  // A matrix, stored transposed, times a vector has no i; ContractionProblem
  // adds one.
  expectRefused(contraction("ji,j->i"),
                "no index plays the matmul microkernel's i (an output index "
                "of B only); give it one of size 1");
  // A convolution whose channels are in the output only (no reduction on
  // a plain axis of both operands).
  spec::Spec conv = spec::conv2d({.K = 16, .C = 4, .R = 3, .S = 3});
  spec::Spec parallelChannels = conv;
  parallelChannels.dims[conv.dimId("c")].kind = spec::DimKind::Parallel;
  expectRefused(parallelChannels, "no reduction index is on a plain axis of "
                                  "both I and W (a convolution's input "
                                  "channels)");
  // An image with one sliding axis.
  spec::Spec oneSliding = conv;
  oneSliding.tensors[1].axes[2].index = spec::AffineExpr::of(conv.dimId("w"));
  expectRefused(oneSliding, "its input I has 1 sliding axes");
  // A planar image whose rows are not its last sliding axis.
  spec::Spec planar = spec::conv2d({.K = 8, .C = 8, .outH = 4, .outW = 4,
                                    .R = 3, .S = 3, .groups = 8,
                                    .planar = true});
  std::swap(planar.tensors[1].axes[2], planar.tensors[1].axes[3]);
  expectRefused(planar, "its output's last index 'w' slides in I, but not "
                        "along its last sliding axis");
}

} // namespace
} // namespace ttile::search
