//===- unittests/Tools/LayerShapeTest.cpp ---------------------------------===//
//
// The work the tools count for a layer: all of its multiply-adds, and those
// that read the input rather than its padding.
//
//===----------------------------------------------------------------------===//

#include "LayerShape.h"

#include <gtest/gtest.h>

namespace ttile::tools {
namespace {

Conv2DParams conv3x3(int64_t size, int64_t pad, int64_t stride = 1) {
  Conv2DParams p;
  p.C = 8;
  p.K = 16;
  p.H = p.W = size;
  p.R = p.S = 3;
  p.strideH = p.strideW = stride;
  p.padTop = p.padLeft = p.padBottom = p.padRight = pad;
  return p;
}

TEST(LayerShape, ValidConvolutionIsAllUsefulWork) {
  Conv2DParams p = conv3x3(12, 0); // 10x10 outputs.
  EXPECT_DOUBLE_EQ(workMflop(p), 2e-6 * 10 * 10 * 16 * 8 * 9);
  EXPECT_DOUBLE_EQ(usefulWorkMflop(p), workMflop(p));
}

TEST(LayerShape, PaddingTapsAreNotUsefulWork) {
  // 10x10 outputs of a 10x10 input padded by 1: along each axis the first
  // and the last output have one tap on the padding, 28 of 30 inside.
  Conv2DParams p = conv3x3(10, 1);
  EXPECT_DOUBLE_EQ(workMflop(p), 2e-6 * 10 * 10 * 16 * 8 * 9);
  EXPECT_DOUBLE_EQ(usefulWorkMflop(p), 2e-6 * 28 * 28 * 16 * 8);
}

TEST(LayerShape, StridedPaddingCountsEachOutputsTaps) {
  // 5 outputs at stride 2 over 10 inputs padded by 1 on each side: the
  // first output's window starts on the padding, the last ends at input 9.
  Conv2DParams p = conv3x3(10, 1, 2);
  EXPECT_DOUBLE_EQ(usefulWorkMflop(p), 2e-6 * 14 * 14 * 16 * 8);
}

TEST(LayerShape, GroupsDivideTheChannelsEachOutputReads) {
  Conv2DParams p = conv3x3(10, 1);
  p.groups = 8;
  EXPECT_DOUBLE_EQ(usefulWorkMflop(p), 2e-6 * 28 * 28 * 16);
}

TEST(LayerShape, NoOutputIsNoWork) {
  Conv2DParams p = conv3x3(2, 0); // The window is larger than the input.
  EXPECT_EQ(workMflop(p), 0);
  EXPECT_EQ(usefulWorkMflop(p), 0);
}

} // namespace
} // namespace ttile::tools
