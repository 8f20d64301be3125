//===- unittests/Measure/AlignedBufferTest.cpp ----------------------------===//

#include "Measure/AlignedBuffer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ttile::measure {
namespace {

TEST(AlignedBuffer, StartsAlignedAndZeroed) {
  AlignedBuffer buffer(37);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) %
                AlignedBuffer::kAlignment,
            0u);
  ASSERT_EQ(buffer.size(), 37u);
  for (float value : buffer.span())
    EXPECT_EQ(value, 0.0f);
}

TEST(AlignedBuffer, StartsTheOffsetPastALine) {
  for (size_t offset : {4u, 16u, 60u}) {
    AlignedBuffer buffer(37, offset);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) %
                  AlignedBuffer::kAlignment,
              offset);
    ASSERT_EQ(buffer.size(), 37u);
    for (float value : buffer.span())
      EXPECT_EQ(value, 0.0f);
  }
}

TEST(AlignedBuffer, RejectsAnOffsetThatIsNotAWholeFloatWithinALine) {
  EXPECT_THROW(AlignedBuffer(8, 2), std::invalid_argument);
  EXPECT_THROW(AlignedBuffer(8, 64), std::invalid_argument);
}

TEST(AlignedBuffer, RandomFillIsInRangeAndDependsOnlyOnTheSeed) {
  AlignedBuffer first(1000), second(1000), other(1000);
  first.fillRandom(42);
  second.fillRandom(42);
  other.fillRandom(43);
  bool differs = false;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_GE(first.data()[i], -1.0f);
    EXPECT_LT(first.data()[i], 1.0f);
    EXPECT_EQ(first.data()[i], second.data()[i]);
    differs |= first.data()[i] != other.data()[i];
  }
  EXPECT_TRUE(differs);
}

TEST(AlignedBuffer, MovesOwnership) {
  AlignedBuffer source(8, 16);
  source.fill(3.0f);
  float *data = source.data();
  AlignedBuffer target(std::move(source));
  EXPECT_EQ(target.data(), data);
  EXPECT_EQ(target.size(), 8u);
  EXPECT_EQ(target.data()[7], 3.0f);
}

} // namespace
} // namespace ttile::measure
