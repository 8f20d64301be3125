//===- unittests/Spec/SpecTest.cpp - Spec accessors and verify() ----------===//

#include "Spec/Spec.h"
#include "Spec/SpecBuilders.h"

#include "SpecTestUtil.h"

#include <functional>

namespace ttile::spec {
namespace {

using test::throwsErrorWith;

TEST(AffineExprTest, BuildsAndEvaluates) {
  AffineExpr index = AffineExpr::of(0, 2).plus(2);
  index.constant = 3;
  EXPECT_EQ(index.coeffOf(0), 2);
  EXPECT_EQ(index.coeffOf(1), 0);
  EXPECT_EQ(index.coeffOf(2), 1);
  EXPECT_TRUE(index.uses(2));
  EXPECT_FALSE(index.uses(1));
  const int64_t point[] = {5, 100, 7};
  EXPECT_EQ(index.evaluate(point), 3 + 2 * 5 + 7);
}

TEST(AffineExprTest, RejectsARepeatedDimension) {
  AffineExpr index = AffineExpr::of(1);
  EXPECT_TRUE(throwsErrorWith([&] { index.plus(1); }, "already present"));
}

TEST(ElementTypeTest, F32) {
  EXPECT_EQ(elementSize(ElementType::F32), 4);
  EXPECT_EQ(elementTypeName(ElementType::F32), "f32");
}

TEST(TensorTest, StridesOffsetsAndAxes) {
  Spec spec = conv2d({.N = 2, .K = 5, .C = 3, .outH = 4, .outW = 6, .R = 3, .S = 2});
  const Tensor &input = spec.tensors[1];
  // I[n, h+r, w+s, c]: extents 2, 6, 7, 3.
  EXPECT_EQ(input.numElements(), 2 * 6 * 7 * 3);
  EXPECT_EQ(input.strides(), (std::vector<int64_t>{6 * 7 * 3, 7 * 3, 3, 1}));
  EXPECT_EQ(input.axisOf(spec.dimId("r")), 1);
  EXPECT_EQ(input.axisOf(spec.dimId("c")), 3);
  EXPECT_FALSE(input.axisOf(spec.dimId("k")).has_value());
  EXPECT_TRUE(input.uses(spec.dimId("s")));
  EXPECT_FALSE(input.uses(spec.dimId("k")));
  // Dimensions n, k, c, h, w, r, s.
  const int64_t point[] = {1, 4, 2, 3, 5, 2, 1};
  EXPECT_EQ(input.offsetAt(point), 1 * 126 + (3 + 2) * 21 + (5 + 1) * 3 + 2);
}

TEST(SpecTest, LooksUpDimsAndTensors) {
  Spec spec = matmul(2, 3, 4);
  EXPECT_EQ(spec.findDim("j"), 1);
  EXPECT_FALSE(spec.findDim("q").has_value());
  EXPECT_EQ(spec.dimId("k"), 2);
  EXPECT_TRUE(throwsErrorWith([&] { spec.dimId("q"); },
                              "spec 'matmul' has no dimension 'q'"));
  EXPECT_EQ(spec.findTensor("B"), 2);
  EXPECT_FALSE(spec.findTensor("D").has_value());
  EXPECT_EQ(spec.inputIndices(), (std::vector<int>{1, 2}));
  EXPECT_FALSE(spec.biasIndex().has_value());
  EXPECT_TRUE(spec.isReduction(2));
  EXPECT_FALSE(spec.isReduction(0));
}

TEST(SpecTest, CountsIterationsAndFlops) {
  Spec conv =
      conv2d({.N = 1, .K = 64, .C = 64, .outH = 56, .outW = 56, .R = 3, .S = 3});
  EXPECT_EQ(conv.iterationCount(), 64LL * 64 * 56 * 56 * 3 * 3);
  EXPECT_EQ(conv.flops(), 2 * conv.iterationCount());
  // Three inputs: two multiplies and one add per point.
  Spec chain =
      contraction("ij,jk,kl->il", {{'i', 2}, {'j', 3}, {'k', 4}, {'l', 5}});
  EXPECT_EQ(chain.flops(), 3 * 2 * 3 * 4 * 5);
}

TEST(SpecTest, IterationCountOverflowIsAnError) {
  const int64_t big = int64_t{1} << 20;
  Spec spec = contraction("a,b,c,d->a",
                          {{'a', big}, {'b', big}, {'c', big}, {'d', big}});
  EXPECT_TRUE(throwsErrorWith([&] { (void)spec.iterationCount(); },
                              "iteration count of spec 'contraction' "
                              "overflows int64"));
}

TEST(SpecTest, StrIsOneEinsumLikeLine) {
  EXPECT_EQ(conv2d({.N = 1, .K = 64, .C = 64, .outH = 56, .outW = 56, .R = 3, .S = 3})
                .str(),
            "O[n,h,w,k] += I[n,h+r,w+s,c] * W[r,s,c,k] "
            "{n=1,k=64,c=64,h=56,w=56,r=3,s=3}");
  EXPECT_EQ(
      conv2d({.outH = 2, .outW = 2, .R = 3, .S = 3, .strideH = 2, .dilationW = 3})
          .str(),
      "O[n,h,w,k] += I[n,2*h+r,w+3*s,c] * W[r,s,c,k] "
      "{n=1,k=1,c=1,h=2,w=2,r=3,s=3}");
  EXPECT_EQ(matmul(2, 3, 4).str(), "C[i,j] += A[i,k] * B[k,j] {i=2,j=3,k=4}");
}

TEST(SpecTest, StrShowsConstantsBiasAndActivation) {
  Spec spec = matmul(2, 3, 4);
  spec.tensors[1].axes[0].index.constant = 3;
  spec.tensors[1].axes[0].extent = 5;
  spec.tensors.push_back(
      {"Bias", TensorRole::Bias, ElementType::F32, {spec.tensors[0].axes[1]}});
  spec.epilogue.activation = Activation::ReLU;
  spec.verify();
  EXPECT_EQ(spec.str(),
            "C[i,j] += A[i+3,k] * B[k,j] + Bias[j], relu {i=2,j=3,k=4}");
  spec.tensors[2].constant = true;
  spec.verify();
  EXPECT_EQ(spec.str(),
            "C[i,j] += A[i+3,k] * const B[k,j] + Bias[j], relu {i=2,j=3,k=4}");
}

TEST(SpecTest, StrShowsTheResidualAndTheActivationsParameters) {
  Spec spec = matmul(2, 3, 4);
  spec.addResidual();
  spec.epilogue = {Activation::Clamp, 0, 6};
  spec.verify();
  EXPECT_EQ(spec.str(), "C[i,j] += A[i,k] * B[k,j] + R[i,j], clamp(0,6) "
                        "{i=2,j=3,k=4}");
  spec.epilogue = {Activation::LeakyReLU, 0.1f, 0};
  EXPECT_EQ(spec.epilogue.str(), "leakyrelu(0.1)");
}

/// One way to break matmul(2, 3, 4) (C[i,j] += A[i,k] * B[k,j]), and the
/// message verify() must give.
struct BrokenSpec {
  const char *what;
  std::function<void(Spec &)> breakIt;
  const char *expectedMessage;
};

class VerifyTest : public testing::TestWithParam<BrokenSpec> {};

TEST_P(VerifyTest, NamesTheBrokenInvariant) {
  Spec spec = matmul(2, 3, 4);
  GetParam().breakIt(spec);
  EXPECT_TRUE(
      throwsErrorWith([&] { spec.verify(); }, GetParam().expectedMessage));
}

Tensor biasOverJ(const Spec &spec) {
  return {
      "Bias", TensorRole::Bias, ElementType::F32, {spec.tensors[0].axes[1]}};
}

const BrokenSpec brokenSpecs[] = {
    {"SizeZero", [](Spec &s) { s.dims[0].size = 0; },
     "spec 'matmul': dimension 'i' has size 0; sizes must be >= 1"},
    {"EmptyDimName", [](Spec &s) { s.dims[0].name = ""; },
     "a dimension has an empty name"},
    {"DuplicateDimName", [](Spec &s) { s.dims[1].name = "i"; },
     "two dimensions are named 'i'"},
    {"NoTensors", [](Spec &s) { s.tensors.clear(); },
     "tensors[0] must be the output"},
    {"OutputNotFirst", [](Spec &s) { std::swap(s.tensors[0], s.tensors[1]); },
     "tensors[0] must be the output"},
    {"TwoOutputs", [](Spec &s) { s.tensors[2].role = TensorRole::Output; },
     "tensor 'B' is a second output"},
    {"NoInputs", [](Spec &s) { s.tensors.resize(1); },
     "the spec has no input tensor"},
    {"InputAfterBias",
     [](Spec &s) { s.tensors.insert(s.tensors.begin() + 2, biasOverJ(s)); },
     "tensor 'B' follows 'Bias'; the inputs come first"},
    {"TwoBiases",
     [](Spec &s) {
       s.tensors.push_back(biasOverJ(s));
       s.tensors.push_back(biasOverJ(s));
       s.tensors.back().name = "Bias2";
     },
     "tensor 'Bias2' follows 'Bias'"},
    {"BiasAfterResidual",
     [](Spec &s) {
       s.addResidual();
       s.tensors.push_back(biasOverJ(s));
     },
     "tensor 'Bias' follows 'R'; the inputs come first, then at most one "
     "bias, then at most one residual"},
    {"ResidualOfAnotherShape",
     [](Spec &s) {
       s.addResidual();
       std::swap(s.tensors.back().axes[0], s.tensors.back().axes[1]);
     },
     "the residual 'R' must have the axes of the output 'C'"},
    {"EmptyTensorName", [](Spec &s) { s.tensors[1].name = ""; },
     "a tensor has an empty name"},
    {"DuplicateTensorName", [](Spec &s) { s.tensors[2].name = "A"; },
     "two tensors are named 'A'"},
    {"EmptyAxisName", [](Spec &s) { s.tensors[1].axes[0].name = ""; },
     "tensor 'A' has an axis with an empty name"},
    {"DuplicateAxisName", [](Spec &s) { s.tensors[1].axes[1].name = "i"; },
     "tensor 'A' has two axes named 'i'"},
    {"ZeroCoefficient",
     [](Spec &s) { s.tensors[1].axes[1].index.terms[0].coeff = 0; },
     "tensor 'A' axis 'k' has coefficient 0 on dimension 'k'"},
    {"UnknownDimId",
     [](Spec &s) { s.tensors[1].axes[1].index.terms[0].dim = 7; },
     "tensor 'A' axis 'k' uses dimension id 7, which does not exist"},
    {"RepeatedDimInIndex",
     [](Spec &s) {
       s.tensors[1].axes[1].index.terms.push_back({2, 1});
       s.tensors[1].axes[1].extent = 7;
     },
     "tensor 'A' axis 'k' uses dimension 'k' twice"},
    {"NegativeConstant",
     [](Spec &s) { s.tensors[2].axes[0].index.constant = -1; },
     "tensor 'B' axis 'k' has a negative constant -1"},
    {"ExtentTooSmall", [](Spec &s) { s.tensors[1].axes[1].extent = 3; },
     "tensor 'A' axis 'k' has extent 3 but its index reaches 3"},
    {"ExtentTooSmallForConstant",
     [](Spec &s) { s.tensors[0].axes[0].index.constant = 1; },
     "tensor 'C' axis 'i' has extent 2 but its index reaches 2"},
    {"ConstantOutput", [](Spec &s) { s.tensors[0].constant = true; },
     "tensor 'C' is constant, but only inputs may be"},
    {"ConstantWithAnOffset",
     [](Spec &s) {
       s.tensors[1].constant = true;
       s.tensors[1].axes[0].index.constant = 1;
       s.tensors[1].axes[0].extent = 3;
     },
     "tensor 'A' axis 'i' of a constant tensor must be exactly one "
     "dimension"},
    {"DimInTwoAxes",
     [](Spec &s) {
       s.tensors[1].axes[0].index = AffineExpr::of(2);
       s.tensors[1].axes[0].extent = 4;
     },
     "dimension 'k' indexes two axes of tensor 'A'"},
    {"OutputUsesReduction",
     [](Spec &s) {
       s.tensors[0].axes.push_back({"k", AffineExpr::of(2), 4});
     },
     "the output 'C' uses reduction dimension 'k'"},
    {"OutputAxisOverTwoDims",
     [](Spec &s) {
       s.tensors[0].axes[1].index.plus(2);
       s.tensors[0].axes[1].extent = 6;
     },
     "output axis 'j' of 'C' must be exactly one dimension"},
    {"BiasUsesReduction",
     [](Spec &s) {
       s.tensors.push_back(biasOverJ(s));
       s.tensors.back().axes[0] = s.tensors[1].axes[1];
     },
     "the bias 'Bias' uses reduction dimension 'k'"},
    {"ReductionUnused",
     [](Spec &s) {
       s.dims.push_back({"z", DimKind::Reduction, 2});
     },
     "reduction dimension 'z' is used by no input"},
    {"ParallelNotInOutput",
     [](Spec &s) {
       s.dims.push_back({"z", DimKind::Parallel, 2});
     },
     "parallel dimension 'z' does not index the output 'C'"},
    {"TooManyElements",
     [](Spec &s) {
       s.dims[0].size = s.dims[1].size = int64_t{1} << 21;
       s.tensors[0].axes[0].extent = s.tensors[0].axes[1].extent = int64_t{1}
                                                                   << 21;
     },
     "tensor 'C' has more than 2^40 elements"},
};

INSTANTIATE_TEST_SUITE_P(Spec, VerifyTest, testing::ValuesIn(brokenSpecs),
                         [](const testing::TestParamInfo<BrokenSpec> &info) {
                           return std::string(info.param.what);
                         });

} // namespace
} // namespace ttile::spec
