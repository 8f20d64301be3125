//===- Support/ReadEveryLine.cpp - Bring a buffer into the caches ---------===//

#include "Support/ReadEveryLine.h"

#include <atomic>

namespace ttile {

void readEveryLine(const float *data, int64_t bytes) {
  constexpr int64_t kFloatsPerLine = 64 / sizeof(float);
  // The sum goes to an atomic so that the compiler cannot drop the loads.
  static std::atomic<float> sink{0};
  float sum = 0;
  const int64_t floats = bytes / static_cast<int64_t>(sizeof(float));
  for (int64_t i = 0; i < floats; i += kFloatsPerLine)
    sum += data[i];
  sink.store(sum, std::memory_order_relaxed);
}

} // namespace ttile
