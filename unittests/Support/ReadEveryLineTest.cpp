//===- unittests/Support/ReadEveryLineTest.cpp - Reads in bounds ----------===//
//
// readEveryLine reads within its buffer whatever its size and alignment:
// the buffers are exactly their size, so that AddressSanitizer (scripts/test)
// reports a read past the end.
//
//===----------------------------------------------------------------------===//

#include "Support/ReadEveryLine.h"

#include <gtest/gtest.h>

#include <vector>

namespace ttile {
namespace {

TEST(ReadEveryLineTest, ReadsWithinTheBuffer) {
  for (size_t floats : {0, 1, 15, 16, 17, 25, 1025}) {
    SCOPED_TRACE(floats);
    const std::vector<float> buffer(floats, 1.0f);
    readEveryLine(buffer.data(), static_cast<int64_t>(floats * sizeof(float)));
    // Off a line's start: the last line read is a partial one.
    if (floats > 1)
      readEveryLine(buffer.data() + 1,
                    static_cast<int64_t>((floats - 1) * sizeof(float)));
  }
}

} // namespace
} // namespace ttile
