//===- unittests/Spec/SpecBuildersTest.cpp - conv2d, matmul, einsum -------===//

#include "Spec/SpecBuilders.h"

#include "SpecTestUtil.h"

namespace ttile::spec {
namespace {

using test::throwsErrorWith;

std::vector<std::string> dimNames(const Spec &spec) {
  std::vector<std::string> names;
  for (const Dim &dim : spec.dims)
    names.push_back(dim.name);
  return names;
}

std::vector<std::string> reductionNames(const Spec &spec) {
  std::vector<std::string> names;
  for (const Dim &dim : spec.dims)
    if (dim.kind == DimKind::Reduction)
      names.push_back(dim.name);
  return names;
}

/// "name:extent" for each axis, e.g. "h:9".
std::vector<std::string> axesOf(const Tensor &tensor) {
  std::vector<std::string> axes;
  for (const TensorAxis &axis : tensor.axes)
    axes.push_back(axis.name + ":" + std::to_string(axis.extent));
  return axes;
}

using Names = std::vector<std::string>;

TEST(Conv2dTest, StridedDilatedShape) {
  ConvShape shape{.N = 2,
                  .K = 8,
                  .C = 3,
                  .outH = 5,
                  .outW = 4,
                  .R = 3,
                  .S = 2,
                  .strideH = 2,
                  .strideW = 3,
                  .dilationH = 2,
                  .dilationW = 4};
  Spec spec = conv2d(shape);
  EXPECT_EQ(spec.name, "conv2d");
  EXPECT_EQ(dimNames(spec), (Names{"n", "k", "c", "h", "w", "r", "s"}));
  EXPECT_EQ(reductionNames(spec), (Names{"c", "r", "s"}));
  EXPECT_EQ(spec.dims[spec.dimId("h")].size, 5);
  EXPECT_EQ(spec.dims[spec.dimId("s")].size, 2);

  ASSERT_EQ(spec.tensors.size(), 3u);
  const Tensor &output = spec.tensors[0];
  const Tensor &input = spec.tensors[1];
  const Tensor &weights = spec.tensors[2];
  EXPECT_EQ(output.name, "O");
  EXPECT_EQ(output.role, TensorRole::Output);
  EXPECT_EQ(axesOf(output), (Names{"n:2", "h:5", "w:4", "k:8"}));
  EXPECT_EQ(input.name, "I");
  EXPECT_EQ(input.role, TensorRole::Input);
  // (outH-1)*strideH + (R-1)*dilationH + 1 = 4*2 + 2*2 + 1 = 13, and
  // (outW-1)*strideW + (S-1)*dilationW + 1 = 3*3 + 1*4 + 1 = 14.
  EXPECT_EQ(axesOf(input), (Names{"n:2", "h:13", "w:14", "c:3"}));
  EXPECT_EQ(weights.name, "W");
  EXPECT_EQ(axesOf(weights), (Names{"r:3", "s:2", "c:3", "k:8"}));

  const AffineExpr &row = input.axes[1].index;
  EXPECT_EQ(row.coeffOf(spec.dimId("h")), 2);
  EXPECT_EQ(row.coeffOf(spec.dimId("r")), 2);
  EXPECT_EQ(row.terms.size(), 2u);
  const AffineExpr &column = input.axes[2].index;
  EXPECT_EQ(column.coeffOf(spec.dimId("w")), 3);
  EXPECT_EQ(column.coeffOf(spec.dimId("s")), 4);
  EXPECT_EQ(column.constant, 0);
}

TEST(Conv2dTest, PaddingIsAZeroPaddedInputAxis) {
  Spec spec = conv2d({.C = 2, .outH = 4, .outW = 4, .R = 3, .S = 3, .padTop = 1,
                      .padLeft = 2, .padBottom = 1, .padRight = 0});
  const Tensor &input = spec.tensors[1];
  EXPECT_TRUE(input.axes[1].zeroPadded);
  EXPECT_EQ(input.axes[1].index.constant, -1);
  EXPECT_EQ(input.axes[1].extent, 4); // 4 + 3 - 1 - 2 padded rows.
  EXPECT_TRUE(input.axes[2].zeroPadded);
  EXPECT_EQ(input.axes[2].extent, 4);
  EXPECT_TRUE(spec.str().starts_with(
      "O[n,h,w,k] += I[n,pad(h+r-1),pad(w+s-2),c] * W[r,s,c,k] "));
  // Only inputs may be padded, and only padded axes go below zero.
  Spec broken = spec;
  broken.tensors[0].axes[1].zeroPadded = true;
  EXPECT_TRUE(throwsErrorWith([&] { broken.verify(); }, "only inputs"));
  broken = spec;
  broken.tensors[1].axes[1].zeroPadded = false;
  EXPECT_TRUE(throwsErrorWith([&] { broken.verify(); }, "negative constant"));
  // Without an input size, the input is what the window reaches less the
  // padding; padding the whole window leaves none.
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.outH = 1, .padTop = 2}); },
                              "conv2d: the padding along h (2, 0) leaves no "
                              "input"));
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.padRight = -1}); },
                              "ConvShape.padRight must be >= 0, got -1"));
}

TEST(Conv2dTest, GroupsAndDepthwise) {
  Spec grouped = conv2d({.K = 8, .C = 6, .groups = 2});
  EXPECT_EQ(grouped.name, "conv2d");
  EXPECT_EQ(dimNames(grouped), (Names{"n", "g", "k", "c", "h", "w", "r", "s"}));
  EXPECT_EQ(grouped.dims[grouped.dimId("k")].size, 4);
  EXPECT_EQ(grouped.dims[grouped.dimId("c")].size, 3);
  EXPECT_TRUE(grouped.str().starts_with(
      "O[n,h,w,g,k] += I[n,h+r,w+s,g,c] * W[r,s,c,g,k] "));
  Spec depthwise = conv2d({.K = 32, .C = 32, .groups = 32, .bias = true});
  EXPECT_EQ(depthwise.name, "depthwise");
  EXPECT_EQ(dimNames(depthwise), (Names{"n", "g", "h", "w", "r", "s"}));
  EXPECT_TRUE(depthwise.str().starts_with(
      "O[n,h,w,g] += I[n,h+r,w+s,g] * W[r,s,g] + B[g]"));
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.K = 8, .C = 6, .groups = 4}); },
                              "groups (4) does not divide K (8)") ||
              throwsErrorWith([] { conv2d({.K = 8, .C = 6, .groups = 4}); },
                              "groups (4) does not divide C (6)"));
}

TEST(Conv2dTest, PlanarDepthwise) {
  Spec planar = conv2d({.K = 32,
                        .C = 32,
                        .outH = 5,
                        .outW = 6,
                        .R = 3,
                        .S = 3,
                        .padLeft = 1,
                        .groups = 32,
                        .bias = true,
                        .planar = true});
  EXPECT_EQ(planar.name, "depthwise");
  EXPECT_EQ(dimNames(planar), (Names{"n", "g", "h", "w", "r", "s"}));
  EXPECT_TRUE(planar.str().starts_with(
      "O[n,g,h,w] += I[n,g,h+r,pad(w+s-1)] * W[g,r,s] + B[g]"))
      << planar.str();
  // One plane: a g of size 1, as the planar microkernels are measured.
  EXPECT_EQ(dimNames(conv2d({.planar = true})),
            (Names{"n", "g", "h", "w", "r", "s"}));
  for (ConvShape shape : {ConvShape{.K = 16, .C = 8, .groups = 8},
                          ConvShape{.K = 8, .C = 8, .strideW = 3, .groups = 8},
                          ConvShape{.K = 8, .C = 8, .R = 3, .S = 3},
                          ConvShape{.K = 8, .C = 8, .padTop = 1}}) {
    shape.planar = true;
    EXPECT_TRUE(throwsErrorWith([&] { conv2d(shape); },
                                "a planar (NCHW) spec is a depthwise "
                                "convolution without channel multiplier"));
  }
}

TEST(Conv2dTest, PlanarPointwise) {
  Spec planar = conv2d({.N = 2, .K = 24, .C = 16, .outH = 1, .outW = 49,
                        .bias = true, .residual = true, .planar = true});
  EXPECT_EQ(planar.name, "conv2d");
  EXPECT_EQ(dimNames(planar), (Names{"n", "k", "c", "h", "w"}));
  EXPECT_TRUE(planar.str().starts_with(
      "O[n,k,h,w] += I[n,c,h,w] * W[k,c] + B[k] + R[n,k,h,w]"))
      << planar.str();
}

TEST(Conv2dTest, PlanarInputAlone) {
  Spec first = conv2d({.K = 32,
                       .C = 3,
                       .outH = 4,
                       .outW = 4,
                       .R = 3,
                       .S = 3,
                       .strideH = 2,
                       .strideW = 2,
                       .padTop = 1,
                       .padLeft = 1,
                       .bias = true,
                       .planarInput = true});
  EXPECT_EQ(first.name, "conv2d");
  EXPECT_TRUE(first.str().starts_with("O[n,h,w,k] += "
                                      "I[n,c,pad(2*h+r-1),pad(2*w+s-1)] * "
                                      "W[r,s,c,k] + B[k]"))
      << first.str();
  // With groups, the group then the channel within it, before the rows.
  Spec grouped = conv2d({.K = 8, .C = 4, .groups = 2, .planarInput = true});
  EXPECT_TRUE(grouped.str().starts_with("O[n,h,w,g,k] += I[n,g,c,h+r,w+s]"))
      << grouped.str();
  // One channel in one group is no depthwise convolution.
  EXPECT_EQ(conv2d({.K = 8, .C = 1, .planarInput = true}).name, "conv2d");
  EXPECT_TRUE(throwsErrorWith(
      [] { conv2d({.K = 8, .C = 8, .groups = 8, .planarInput = true}); },
      "a planar input alone is for a convolution of more than one input "
      "channel per group"));
}

TEST(Conv2dTest, RejectsNonPositiveFields) {
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.K = 0}); },
                              "ConvShape.K must be >= 1, got 0"));
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.N = -3}); },
                              "ConvShape.N must be >= 1, got -3"));
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.strideW = 0}); },
                              "ConvShape.strideW must be >= 1, got 0"));
  EXPECT_TRUE(throwsErrorWith([] { conv2d({.dilationH = 0}); },
                              "ConvShape.dilationH must be >= 1, got 0"));
}

TEST(Conv2dTest, RejectsHugeShapes) {
  EXPECT_TRUE(throwsErrorWith(
      [] { conv2d({.outH = int64_t{1} << 62, .strideH = 4}); },
      "conv2d: the input height (outH-1)*strideH + (R-1)*dilationH + 1 "
      "overflows int64"));
  EXPECT_TRUE(
      throwsErrorWith([] { conv2d({.N = 1 << 20, .outH = 1 << 20, .outW = 2}); },
                      "tensor 'O' has more than 2^40 elements"));
  // Each factor fits, their product does not.
  EXPECT_TRUE(throwsErrorWith(
      [] {
        conv2d({.N = int64_t{1} << 32,
                .K = int64_t{1} << 32,
                .outH = int64_t{1} << 32});
      },
      "element count of tensor 'O' overflows int64"));
}

TEST(MatmulTest, Shape) {
  Spec spec = matmul(2, 3, 4);
  EXPECT_EQ(spec.name, "matmul");
  EXPECT_EQ(dimNames(spec), (Names{"i", "j", "k"}));
  EXPECT_EQ(reductionNames(spec), (Names{"k"}));
  ASSERT_EQ(spec.tensors.size(), 3u);
  EXPECT_EQ(spec.tensors[0].name, "C");
  EXPECT_EQ(axesOf(spec.tensors[0]), (Names{"i:2", "j:3"}));
  EXPECT_EQ(spec.tensors[1].name, "A");
  EXPECT_EQ(axesOf(spec.tensors[1]), (Names{"i:2", "k:4"}));
  EXPECT_EQ(spec.tensors[2].name, "B");
  EXPECT_EQ(axesOf(spec.tensors[2]), (Names{"k:4", "j:3"}));
  EXPECT_TRUE(throwsErrorWith([] { matmul(2, 0, 4); },
                              "matmul: N must be >= 1, got 0"));
}

TEST(MatmulTest, BatchedTransposedAndStrided) {
  MatMulShape shape;
  shape.batch = 2;
  shape.M = 3;
  shape.N = 5;
  shape.K = 4;
  shape.transA = true;
  shape.transB = true;
  shape.broadcastB = true;
  shape.ldc = 8;
  shape.bias = true;
  shape.residual = true;
  Spec spec = matmul(shape);
  EXPECT_EQ(dimNames(spec), (Names{"b", "i", "j", "k"}));
  EXPECT_EQ(spec.str(), "C[b,i,j] += A[b,k,i] * B[j,k] + bias[j] + R[b,i,j] "
                        "{b=2,i=3,j=5,k=4}");
  // A is dense; C has rows 8 apart and items 3 rows apart, as its residual.
  EXPECT_FALSE(spec.tensors[1].hasExplicitStrides());
  EXPECT_EQ(spec.tensors[0].strides(), (std::vector<int64_t>{24, 8, 1}));
  EXPECT_EQ(spec.tensors[0].numElements(), 24 + 2 * 8 + 5);
  EXPECT_EQ(spec.tensors[4].strides(), spec.tensors[0].strides());
}

TEST(MatmulTest, StridesThatMakeOutputElementsShareMemoryAreRefused) {
  Spec spec = matmul(4, 8, 2);
  spec.tensors[0].axes[0].stride = 4; // Rows of 8 elements, 4 apart.
  spec.tensors[0].axes[1].stride = 1;
  EXPECT_TRUE(throwsErrorWith([&] { spec.verify(); },
                              "axis 'i' has stride 4, which makes two of its "
                              "elements share memory"));
  spec.tensors[0].axes[1].stride = 0;
  EXPECT_TRUE(throwsErrorWith([&] { spec.verify(); },
                              "explicit strides must be >= 1 on every axis"));
}

TEST(ContractionTest, Matmul) {
  Spec spec = contraction("ik,kj->ij", {{'i', 2}, {'j', 3}, {'k', 4}});
  EXPECT_EQ(spec.name, "contraction");
  EXPECT_EQ(dimNames(spec), (Names{"i", "j", "k"}));
  EXPECT_EQ(reductionNames(spec), (Names{"k"}));
  EXPECT_EQ(spec.str(), "O[i,j] += A[i,k] * B[k,j] {i=2,j=3,k=4}");
}

TEST(ContractionTest, TensorContraction) {
  Spec spec =
      contraction("aebf,dfce->abcd",
                  {{'a', 2}, {'b', 3}, {'c', 4}, {'d', 5}, {'e', 6}, {'f', 7}});
  // Output letters first, then the reductions as they first appear.
  EXPECT_EQ(dimNames(spec), (Names{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(reductionNames(spec), (Names{"e", "f"}));
  EXPECT_EQ(axesOf(spec.tensors[0]), (Names{"a:2", "b:3", "c:4", "d:5"}));
  EXPECT_EQ(axesOf(spec.tensors[1]), (Names{"a:2", "e:6", "b:3", "f:7"}));
  EXPECT_EQ(axesOf(spec.tensors[2]), (Names{"d:5", "f:7", "c:4", "e:6"}));
  EXPECT_EQ(spec.tensors[1].name, "A");
  EXPECT_EQ(spec.tensors[2].name, "B");
  EXPECT_EQ(spec.tensors[0].name, "O");
}

TEST(ContractionTest, ReductionsInOrderOfFirstAppearance) {
  Spec spec =
      contraction("zyx,xw->w", {{'w', 2}, {'x', 3}, {'y', 4}, {'z', 5}});
  EXPECT_EQ(dimNames(spec), (Names{"w", "z", "y", "x"}));
}

TEST(ContractionTest, IgnoresSpaces) {
  Spec spec = contraction("  ik , kj\t->  ij ", {{'i', 2}, {'j', 3}, {'k', 4}});
  EXPECT_EQ(spec.str(), "O[i,j] += A[i,k] * B[k,j] {i=2,j=3,k=4}");
}

TEST(ContractionTest, OneAndThreeInputs) {
  Spec rowSums = contraction("ij->i", {{'i', 2}, {'j', 3}});
  EXPECT_EQ(rowSums.str(), "O[i] += A[i,j] {i=2,j=3}");
  Spec chain =
      contraction("ij,jk,kl->il", {{'i', 2}, {'j', 3}, {'k', 4}, {'l', 5}});
  EXPECT_EQ(chain.str(),
            "O[i,l] += A[i,j] * B[j,k] * C[k,l] {i=2,l=5,j=3,k=4}");
}

TEST(ContractionTest, AnEmptyOutputIsAScalar) {
  Spec spec = contraction("ij,ij->", {{'i', 2}, {'j', 3}});
  EXPECT_TRUE(spec.tensors[0].axes.empty());
  EXPECT_EQ(reductionNames(spec), (Names{"i", "j"}));
  EXPECT_EQ(spec.str(), "O[] += A[i,j] * B[i,j] {i=2,j=3}");
}

TEST(ContractionTest, NoReduction) {
  Spec spec = contraction("ij,j->ij", {{'i', 2}, {'j', 3}});
  EXPECT_TRUE(reductionNames(spec).empty());
}

TEST(ContractionTest, InputNamesSkipTheOutputName) {
  std::string einsum;
  std::map<char, int64_t> sizes;
  for (char letter = 'a'; letter < 'a' + 16; ++letter) {
    einsum += einsum.empty() ? "" : ",";
    einsum += letter;
    sizes[letter] = 1;
  }
  Spec spec = contraction(einsum + "->a", sizes);
  EXPECT_EQ(spec.tensors[14].name, "N");
  EXPECT_EQ(spec.tensors[15].name, "P");
  EXPECT_EQ(spec.tensors[16].name, "Q");
}

struct MalformedEinsum {
  const char *einsum;
  const char *expectedMessage;
};

class MalformedEinsumTest : public testing::TestWithParam<MalformedEinsum> {};

TEST_P(MalformedEinsumTest, NamesThePosition) {
  const std::map<char, int64_t> sizes = {{'i', 2}, {'j', 3}, {'k', 4}};
  EXPECT_TRUE(throwsErrorWith([&] { contraction(GetParam().einsum, sizes); },
                              GetParam().expectedMessage));
}

const MalformedEinsum malformedEinsums[] = {
    {"ik,kj", "contraction \"ik,kj\": missing '->' (reached the end at "
              "column 6)"},
    {"", "missing '->'"},
    {"ik,,kj->ij", "input 2 at column 4 is empty"},
    {",kj->ij", "input 1 at column 1 is empty"},
    {"->ij", "input 1 at column 1 is empty"},
    {"i1,kj->ij", "unexpected character '1' at column 2"},
    {"ik;kj->ij", "unexpected character ';' at column 3"},
    {"ik,kj-ij", "unexpected character '-' at column 6"},
    {"ik,kj->i,j", "unexpected character ',' at column 9"},
    {"ik,kj->ij->i", "unexpected character '-' at column 10"},
    {"ii,ij->j", "letter 'i' at column 2 repeats in input 1"},
    {"ik,kjk->ij", "letter 'k' at column 6 repeats in input 2"},
    {"ik,kj->iji", "letter 'i' at column 10 repeats in the output"},
    {"ik,kj->iz", "output letter 'z' at column 9 appears in no input"},
    {"ik,kq->iq", "letter 'q' at column 9 has no size"},
    {"ik,kq->i", "letter 'q' at column 5 has no size"},
};

INSTANTIATE_TEST_SUITE_P(Spec, MalformedEinsumTest,
                         testing::ValuesIn(malformedEinsums));

TEST(ContractionTest, NamesATermOverTwoToThe40Elements) {
  const int64_t big = int64_t(1) << 21;
  EXPECT_TRUE(throwsErrorWith(
      [&] {
        contraction("ik,kj->ij", {{'i', big}, {'j', big}, {'k', 1}});
      },
      "contraction \"ik,kj->ij\": the output (\"ij\") has more than 2^40 "
      "elements; check the sizes"));
  EXPECT_TRUE(throwsErrorWith(
      [&] {
        contraction("ik,kj->ij", {{'i', 1}, {'j', big}, {'k', big}});
      },
      "input 2 (\"kj\") has more than 2^40 elements"));
  // Each factor below the limit, their product above it, without overflow.
  const int64_t huge = int64_t(1) << 62;
  EXPECT_TRUE(throwsErrorWith(
      [&] {
        contraction("ik,kj->ij", {{'i', 1}, {'j', 1}, {'k', huge}});
      },
      "input 1 (\"ik\") has more than 2^40 elements"));
}

TEST(ContractionTest, RejectsNonPositiveSizes) {
  EXPECT_TRUE(throwsErrorWith(
      [] {
        contraction("ik,kj->ij", {{'i', 2}, {'j', 3}, {'k', 0}});
      },
      "letter 'k' has size 0; sizes must be >= 1"));
}

} // namespace
} // namespace ttile::spec
