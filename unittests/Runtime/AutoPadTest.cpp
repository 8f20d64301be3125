//===- unittests/Runtime/AutoPadTest.cpp - ONNX's auto_pad ----------------===//

#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ttile {
namespace {

/// A problem of `input` x `input` pixels with a square kernel, stride and
/// dilation, and an explicit padding that auto_pad should replace.
Conv2DParams square(int64_t input, int64_t kernel, int64_t stride,
                    int64_t dilation) {
  Conv2DParams p;
  p.C = 2;
  p.K = 3;
  p.H = p.W = input;
  p.R = p.S = kernel;
  p.strideH = p.strideW = stride;
  p.dilationH = p.dilationW = dilation;
  p.padTop = p.padLeft = p.padBottom = p.padRight = 9;
  return p;
}

/// Values of ONNX's definition, and of its backend tests where named.
TEST(AutoPadTest, MatchesOnnx) {
  struct Case {
    const char *name;
    int64_t input, kernel, stride, dilation;
    AutoPad autoPad;
    int64_t begin, end, output;
  };
  const Case cases[] = {
      {"test_conv_with_autopad_same", 5, 3, 2, 1, AutoPad::SameLower, 1, 1, 3},
      {"test_averagepool_2d_precomputed_same_upper", 5, 3, 2, 1,
       AutoPad::SameUpper, 1, 1, 3},
      {"test_averagepool_2d_same_upper", 32, 2, 1, 1, AutoPad::SameUpper, 0, 1,
       32},
      {"test_averagepool_2d_same_lower", 32, 2, 1, 1, AutoPad::SameLower, 1, 0,
       32},
      {"odd total, SAME_UPPER: the extra one at the end", 10, 4, 3, 1,
       AutoPad::SameUpper, 1, 2, 4},
      {"odd total, SAME_LOWER: the extra one at the beginning", 10, 4, 3, 1,
       AutoPad::SameLower, 2, 1, 4},
      {"dilation widens the kernel", 7, 3, 1, 2, AutoPad::SameUpper, 2, 2, 7},
      {"stride wider than the kernel: no padding", 5, 1, 3, 1,
       AutoPad::SameUpper, 0, 0, 2},
      {"VALID", 7, 3, 2, 1, AutoPad::Valid, 0, 0, 3},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Conv2DParams p = square(c.input, c.kernel, c.stride, c.dilation);
    setAutoPad(p, c.autoPad);
    EXPECT_EQ(p.padTop, c.begin);
    EXPECT_EQ(p.padLeft, c.begin);
    EXPECT_EQ(p.padBottom, c.end);
    EXPECT_EQ(p.padRight, c.end);
    Conv2D conv(p);
    EXPECT_EQ(conv.outH(), c.output);
    EXPECT_EQ(conv.outW(), c.output);
  }
}

TEST(AutoPadTest, EachAxisHasItsOwnPadding) {
  Conv2DParams p = square(7, 2, 2, 1);
  p.S = 4;
  setAutoPad(p, AutoPad::SameUpper);
  EXPECT_EQ(p.padTop, 0);
  EXPECT_EQ(p.padBottom, 1);
  EXPECT_EQ(p.padLeft, 1);
  EXPECT_EQ(p.padRight, 2);
}

TEST(AutoPadTest, NotSetLeavesTheExplicitPadding) {
  Conv2DParams p = square(7, 3, 1, 1);
  p.padTop = 1;
  p.padRight = 2;
  setAutoPad(p, AutoPad::NotSet);
  EXPECT_EQ(p.padTop, 1);
  EXPECT_EQ(p.padLeft, 9);
  EXPECT_EQ(p.padRight, 2);
}

void expectError(Conv2DParams p, AutoPad autoPad, const std::string &text) {
  try {
    setAutoPad(p, autoPad);
    ADD_FAILURE() << "no error; expected \"" << text << "\"";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos)
        << error.what();
  }
}

TEST(AutoPadTest, ErrorsNameTheField) {
  Conv2DParams p = square(7, 3, 1, 1);
  p.strideW = 0;
  expectError(p, AutoPad::SameUpper, "strideW (0) must be at least 1");
  p = square(7, 3, 1, 1);
  p.H = 0;
  expectError(p, AutoPad::SameLower, "H (0) must be at least 1");
  p = square(7, 3, 1, 1);
  p.dilationH = int64_t(1) << 40;
  expectError(p, AutoPad::SameLower, "dilationH (1099511627776) is larger");
  expectError(square(7, 3, 1, 1), static_cast<AutoPad>(9),
              "autoPad (9) is none of NotSet, SameUpper, SameLower and Valid");
}

TEST(AutoPadTest, FromC) {
  ttile_conv2d_params params;
  ASSERT_EQ(ttile_conv2d_params_init(&params), TTILE_OK);
  params.C = params.K = 4;
  params.H = params.W = 5;
  params.R = params.S = 3;
  params.strideH = params.strideW = 2;
  ASSERT_EQ(ttile_conv2d_params_auto_pad(&params, TTILE_AUTO_PAD_SAME_LOWER),
            TTILE_OK)
      << ttile_last_error();
  EXPECT_EQ(params.padTop, 1);
  EXPECT_EQ(params.padRight, 1);
  ASSERT_EQ(ttile_conv2d_params_auto_pad(&params, TTILE_AUTO_PAD_VALID),
            TTILE_OK);
  EXPECT_EQ(params.padBottom, 0);

  EXPECT_EQ(ttile_conv2d_params_auto_pad(nullptr, TTILE_AUTO_PAD_VALID),
            TTILE_INVALID_ARGUMENT);
  EXPECT_STREQ(ttile_last_error(),
               "ttile_conv2d_params_auto_pad: params is null");
  params.padTop = 5;
  EXPECT_EQ(ttile_conv2d_params_auto_pad(&params, 7), TTILE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ttile_last_error()).find("autoPad (7)"),
            std::string::npos);
  EXPECT_EQ(params.padTop, 5) << "a failure changed the parameters";
}

} // namespace
} // namespace ttile
