//===- unittests/Runtime/LayoutConversionTest.cpp - NCHW <-> NHWC ---------===//

#include "Runtime/LayoutConversion.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace ttile::runtime {
namespace {

/// 0, 1, 2, ...: every element tells where it came from.
std::vector<float> iota(int64_t count) {
  std::vector<float> values(static_cast<size_t>(count));
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

/// Sizes below, at and above the 16 x 16 tiles, and odd ones; the largest
/// (2 x 200 x 97 and up) run on the thread pool.
TEST(LayoutConversionTest, TransposesEveryImage) {
  for (int64_t rows : {1, 3, 16, 17, 40, 200})
    for (int64_t cols : {1, 5, 16, 33, 97}) {
      SCOPED_TRACE(::testing::Message() << rows << " x " << cols);
      const int64_t images = 2;
      std::vector<float> src = iota(images * rows * cols);
      std::vector<float> dst(src.size(), -1.0f);
      transposeImages(src.data(), images, rows, cols, dst.data());
      for (int64_t n = 0; n < images; ++n)
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            ASSERT_EQ(dst[size_t((n * cols + j) * rows + i)],
                      src[size_t((n * rows + i) * cols + j)])
                << "image " << n << ", element (" << i << ", " << j << ")";
    }
}

TEST(LayoutConversionTest, WeightsGoFromKcrsToRsck) {
  struct Shape {
    int64_t K, C, RS;
  };
  for (Shape shape : {Shape{1, 1, 1}, Shape{16, 16, 1}, Shape{20, 3, 9},
                      Shape{13, 1, 4}, Shape{34, 17, 2}}) {
    SCOPED_TRACE(::testing::Message()
                 << "K " << shape.K << " C " << shape.C << " RS " << shape.RS);
    std::vector<float> kcrs = iota(shape.K * shape.C * shape.RS);
    std::vector<float> rsck(kcrs.size(), -1.0f);
    kcrsToRsck(kcrs.data(), shape.K, shape.C, shape.RS, rsck.data());
    for (int64_t k = 0; k < shape.K; ++k)
      for (int64_t c = 0; c < shape.C; ++c)
        for (int64_t rs = 0; rs < shape.RS; ++rs)
          ASSERT_EQ(rsck[size_t((rs * shape.C + c) * shape.K + k)],
                    kcrs[size_t((k * shape.C + c) * shape.RS + rs)])
              << "k " << k << " c " << c << " rs " << rs;
  }
}

TEST(LayoutConversionTest, NhwcProblemsUseTheCallersBuffers) {
  Conv2DParams p;
  p.C = 4;
  p.H = p.W = 5;
  p.K = 8;
  p.R = p.S = 3;
  LayoutConversion nhwc{ConvProblem(p)};
  EXPECT_FALSE(nhwc.converts());
  float input = 0, weights = 0, bias = 0, residual = 0, output = 0;
  RoleBuffers buffers =
      nhwc.toKernel({&input, &weights, &bias, &residual, &output});
  EXPECT_EQ(buffers.input, &input);
  EXPECT_EQ(buffers.weights, &weights);
  EXPECT_EQ(nhwc.kernelWeights(&weights), &weights);
  EXPECT_EQ(buffers.bias, &bias);
  EXPECT_EQ(buffers.residual, &residual);
  EXPECT_EQ(buffers.output, &output);

  // Plain depthwise needs nothing either; a channel multiplier does.
  p.groups = p.C = p.K = 4;
  EXPECT_FALSE(LayoutConversion(ConvProblem(p)).converts());
  p.K = 8;
  EXPECT_TRUE(LayoutConversion(ConvProblem(p)).converts());

  p.groups = 1;
  p.layout = Layout::NCHW;
  EXPECT_TRUE(LayoutConversion(ConvProblem(p)).converts());
}

} // namespace
} // namespace ttile::runtime
