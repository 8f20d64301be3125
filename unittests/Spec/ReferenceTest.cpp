//===- unittests/Spec/ReferenceTest.cpp - The reference executor ----------===//

#include "Spec/Reference.h"
#include "Spec/SpecBuilders.h"

#include "SpecTestUtil.h"

#include <chrono>

namespace ttile::spec {
namespace {

using test::Buffers;
using test::throwsErrorWith;

TEST(ReferenceTest, SmallConvByHand) {
  // One channel, a 3x3 input and a 2x2 kernel give a 2x2 output.
  Spec spec = conv2d({.outH = 2, .outW = 2, .R = 2, .S = 2});
  std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> weights = {1, 2, 3, 4};
  std::vector<float> output(4, -1.0f);
  float *buffers[] = {output.data(), input.data(), weights.data()};
  runReference(spec, buffers);
  // O[0,0] = 1*1 + 2*2 + 4*3 + 5*4, and the window moves by one.
  EXPECT_EQ(output, (std::vector<float>{37, 47, 67, 77}));
}

TEST(ReferenceTest, ZeroPaddingByHand) {
  // A 3x3 window of ones over a 3x3 input padded by one on every side sums
  // the neighbourhood of each pixel; the padding adds nothing.
  Spec spec = conv2d({.outH = 3,
                      .outW = 3,
                      .R = 3,
                      .S = 3,
                      .padTop = 1,
                      .padLeft = 1,
                      .padBottom = 1,
                      .padRight = 1});
  std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> weights(9, 1.0f);
  std::vector<float> output(9, -1.0f);
  float *buffers[] = {output.data(), input.data(), weights.data()};
  runReference(spec, buffers);
  EXPECT_EQ(output,
            (std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(ReferenceTest, PaddingWiderThanTheWindowReadsOnlyZeros) {
  // padTop = 3 with R = 2: the first output row sees only padding.
  Spec spec = conv2d({.outH = 3, .outW = 1, .R = 2, .padTop = 3, .inputH = 2});
  std::vector<float> input = {5, 7};
  std::vector<float> weights = {1, 10};
  std::vector<float> output(3, -1.0f);
  float *buffers[] = {output.data(), input.data(), weights.data()};
  runReference(spec, buffers);
  // Rows read: (-3, -2), (-2, -1), (-1, 0).
  EXPECT_EQ(output, (std::vector<float>{0, 0, 50}));
}

TEST(ReferenceTest, SmallMatmulByHand) {
  Spec spec = matmul(2, 2, 2);
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c(4);
  float *buffers[] = {c.data(), a.data(), b.data()};
  runReference(spec, buffers);
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));

  const float *inputs[] = {nullptr, a.data(), b.data()};
  const int64_t coords[] = {1, 0};
  EXPECT_EQ(referenceAt(spec, inputs, coords), 43.0f);
  ReferencePoint point = referencePointAt(spec, inputs, coords);
  EXPECT_EQ(point.value, 43.0);
  EXPECT_EQ(point.magnitude, 3 * 5 + 4 * 7);
}

TEST(ReferenceTest, BiasAndRelu) {
  Spec spec = matmul(2, 2, 2);
  spec.tensors.push_back(
      {"Bias", TensorRole::Bias, ElementType::F32, {spec.tensors[0].axes[1]}});
  spec.epilogue.activation = Activation::ReLU;
  std::vector<float> a = {1, 2, 3, -4}, b = {5, 6, 7, 8}, bias = {-20, 10},
                     c(4);
  // Before the bias: {19, 22, -13, -14}.
  float *buffers[] = {c.data(), a.data(), b.data(), bias.data()};
  runReference(spec, buffers);
  EXPECT_EQ(c, (std::vector<float>{0, 32, 0, 0}));

  const float *inputs[] = {nullptr, a.data(), b.data(), bias.data()};
  const int64_t coords[] = {0, 0};
  ReferencePoint point = referencePointAt(spec, inputs, coords);
  EXPECT_EQ(point.value, 0.0);
  EXPECT_EQ(point.magnitude, 20 + 5 + 14);
}

TEST(ReferenceTest, ResidualThenActivation) {
  Spec spec = matmul(2, 2, 2);
  spec.addResidual();
  spec.epilogue = {Activation::Clamp, -15, 30};
  std::vector<float> a = {1, 2, 3, -4}, b = {5, 6, 7, 8}, r = {1, 10, -4, 2},
                     c(4);
  // Before the residual: {19, 22, -13, -14}.
  float *buffers[] = {c.data(), a.data(), b.data(), r.data()};
  runReference(spec, buffers);
  EXPECT_EQ(c, (std::vector<float>{20, 30, -15, -12}));

  const float *inputs[] = {nullptr, a.data(), b.data(), r.data()};
  const int64_t coords[] = {1, 0};
  ReferencePoint point = referencePointAt(spec, inputs, coords);
  EXPECT_EQ(point.value, -15.0);
  EXPECT_EQ(point.magnitude, (15 + 28 + 4) + 15);
}

TEST(ReferenceTest, StridedDilatedConvMatchesTheFormula) {
  ConvShape shape{.N = 2,
                  .K = 3,
                  .C = 2,
                  .outH = 4,
                  .outW = 5,
                  .R = 3,
                  .S = 2,
                  .strideH = 2,
                  .strideW = 1,
                  .dilationH = 1,
                  .dilationW = 2};
  Spec spec = conv2d(shape);
  Buffers buffers(spec);
  runReference(spec, buffers.all());

  const Tensor &inputTensor = spec.tensors[1];
  int64_t inH = inputTensor.axes[1].extent, inW = inputTensor.axes[2].extent;
  const std::vector<float> &output = buffers[0], &input = buffers[1],
                           &weights = buffers[2];
  for (int64_t n = 0; n < shape.N; ++n)
    for (int64_t h = 0; h < shape.outH; ++h)
      for (int64_t w = 0; w < shape.outW; ++w)
        for (int64_t k = 0; k < shape.K; ++k) {
          double sum = 0;
          for (int64_t r = 0; r < shape.R; ++r)
            for (int64_t s = 0; s < shape.S; ++s)
              for (int64_t c = 0; c < shape.C; ++c) {
                int64_t y = h * shape.strideH + r * shape.dilationH;
                int64_t x = w * shape.strideW + s * shape.dilationW;
                sum += double{input[((n * inH + y) * inW + x) * shape.C + c]} *
                       weights[((r * shape.S + s) * shape.C + c) * shape.K + k];
              }
          int64_t offset = ((n * shape.outH + h) * shape.outW + w) * shape.K + k;
          EXPECT_FLOAT_EQ(output[offset], static_cast<float>(sum))
              << "at O[" << n << "," << h << "," << w << "," << k << "]";
        }
}

TEST(ReferenceTest, ContractionWithThreeInputs) {
  Spec spec =
      contraction("ij,jk,kl->il", {{'i', 2}, {'j', 3}, {'k', 4}, {'l', 5}});
  Buffers buffers(spec);
  runReference(spec, buffers.all());
  const std::vector<float> &a = buffers[1], &b = buffers[2], &c = buffers[3];
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < 5; ++l) {
      double sum = 0;
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
          sum += double{a[i * 3 + j]} * b[j * 4 + k] * c[k * 5 + l];
      EXPECT_FLOAT_EQ(buffers[0][i * 5 + l], static_cast<float>(sum));
    }
}

TEST(ReferenceTest, NoReduction) {
  Spec spec = contraction("ij,j->ij", {{'i', 2}, {'j', 3}});
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 100, 1000}, out(6);
  float *buffers[] = {out.data(), a.data(), b.data()};
  runReference(spec, buffers);
  EXPECT_EQ(out, (std::vector<float>{10, 200, 3000, 40, 500, 6000}));
}

TEST(ReferenceTest, ReferenceAtMatchesRunReference) {
  Spec spec = conv2d({.N = 2,
                      .K = 3,
                      .C = 4,
                      .outH = 3,
                      .outW = 5,
                      .R = 2,
                      .S = 3,
                      .strideW = 2,
                      .dilationH = 2});
  Buffers buffers(spec);
  runReference(spec, buffers.all());
  std::vector<ReferencePoint> points =
      referencePoints(spec, buffers.allConst());
  ASSERT_EQ(points.size(), buffers[0].size());
  const Tensor &output = spec.output();
  std::vector<int64_t> coords(4);
  for (coords[0] = 0; coords[0] < 2; ++coords[0])
    for (coords[1] = 0; coords[1] < 3; ++coords[1])
      for (coords[2] = 0; coords[2] < 5; ++coords[2])
        for (coords[3] = 0; coords[3] < 3; ++coords[3]) {
          int64_t offset = 0;
          for (size_t axis = 0; axis < 4; ++axis)
            offset += coords[axis] * output.strides()[axis];
          ReferencePoint point =
              referencePointAt(spec, buffers.allConst(), coords);
          EXPECT_EQ(static_cast<float>(point.value), buffers[0][offset]);
          EXPECT_EQ(point.value, points[offset].value);
          EXPECT_EQ(point.magnitude, points[offset].magnitude);
          EXPECT_GE(point.magnitude, std::abs(point.value));
        }
}

TEST(ReferenceTest, RejectsBadArguments) {
  Spec spec = matmul(2, 2, 2);
  std::vector<float> a(4), b(4), c(4);
  float *tooFew[] = {c.data(), a.data()};
  EXPECT_TRUE(throwsErrorWith([&] { runReference(spec, tooFew); },
                              "spec 'matmul' has 3 tensors but 2 buffers"));
  float *nullInput[] = {c.data(), a.data(), nullptr};
  EXPECT_TRUE(throwsErrorWith([&] { runReference(spec, nullInput); },
                              "the buffer of tensor 'B' is null"));
  float *nullOutput[] = {nullptr, a.data(), b.data()};
  EXPECT_TRUE(throwsErrorWith([&] { runReference(spec, nullOutput); },
                              "the buffer of the output 'C' is null"));

  const float *inputs[] = {nullptr, a.data(), b.data()};
  const int64_t outside[] = {0, 2}, tooShort[] = {0};
  EXPECT_TRUE(throwsErrorWith([&] { referenceAt(spec, inputs, outside); },
                              "coordinate 2 of output axis 'j' is outside "
                              "[0, 2)"));
  EXPECT_TRUE(throwsErrorWith([&] { referenceAt(spec, inputs, tooShort); },
                              "output 'C' has 2 axes but 1 coordinates"));

  Spec invalid = matmul(2, 2, 2);
  invalid.dims[2].size = 0;
  float *buffers[] = {c.data(), a.data(), b.data()};
  EXPECT_TRUE(throwsErrorWith([&] { runReference(invalid, buffers); },
                              "dimension 'k' has size 0"));
}

TEST(ReferenceTest, FullSizeConvIsFast) {
  Spec spec =
      conv2d({.N = 1, .K = 64, .C = 64, .outH = 56, .outW = 56, .R = 3, .S = 3});
  Buffers buffers(spec);
  auto start = std::chrono::steady_clock::now();
  runReference(spec, buffers.all());
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  RecordProperty("seconds", std::to_string(elapsed.count()));
#ifdef NDEBUG
  // Tests of generated code run the reference on problems of this size. An
  // optimized build takes about a quarter of a second; unoptimized builds
  // are not bound.
  EXPECT_LT(elapsed.count(), 2.0);
#endif
  const int64_t coords[] = {0, 55, 17, 63};
  int64_t offset = ((55 * 56) + 17) * 64 + 63;
  EXPECT_EQ(referenceAt(spec, buffers.allConst(), coords), buffers[0][offset]);
}

} // namespace
} // namespace ttile::spec
