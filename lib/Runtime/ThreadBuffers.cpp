//===- Runtime/ThreadBuffers.cpp - Copies around a kernel -----------------===//

#include "Runtime/ThreadBuffers.h"

#include "Measure/AlignedBuffer.h"

#include <vector>

namespace ttile::runtime {

float *threadBuffer(ThreadBufferSlot slot, int64_t elements) {
  thread_local std::vector<measure::AlignedBuffer> buffers = [] {
    std::vector<measure::AlignedBuffer> all;
    for (int i = 0; i < static_cast<int>(ThreadBufferSlot::Count); ++i)
      all.emplace_back(0);
    return all;
  }();
  measure::AlignedBuffer &buffer = buffers[static_cast<int>(slot)];
  if (buffer.size() < static_cast<size_t>(elements))
    buffer = measure::AlignedBuffer(static_cast<size_t>(elements));
  return buffer.data();
}

} // namespace ttile::runtime
