//===- Measure/CacheFlush.cpp - Evict data from the caches ----------------===//

#include "Measure/CacheFlush.h"

#include "Measure/AlignedBuffer.h"
#include "Support/Host.h"

#include <atomic>

namespace ttile::measure {

int64_t cacheFlushBytes() { return 2 * host().dataCaches.back().bytes; }

void flushCaches() {
  constexpr size_t kFloatsPerLine = 64 / sizeof(float);
  thread_local AlignedBuffer buffer(static_cast<size_t>(cacheFlushBytes()) /
                                    sizeof(float));
  // One load per cache line brings the whole line in. The sum goes to an
  // atomic so that the compiler cannot drop the loads.
  static std::atomic<float> sink{0};
  float sum = 0;
  for (size_t i = 0; i < buffer.size(); i += kFloatsPerLine)
    sum += buffer.data()[i];
  sink.store(sum, std::memory_order_relaxed);
}

} // namespace ttile::measure
