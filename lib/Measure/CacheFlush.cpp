//===- Measure/CacheFlush.cpp - Evict data from the caches ----------------===//

#include "Measure/CacheFlush.h"

#include "Measure/AlignedBuffer.h"
#include "Support/Host.h"
#include "Support/ReadEveryLine.h"

namespace ttile::measure {

int64_t cacheFlushBytes() { return 2 * host().dataCaches.back().bytes; }

void flushCaches() {
  thread_local AlignedBuffer buffer(static_cast<size_t>(cacheFlushBytes()) /
                                    sizeof(float));
  readEveryLine(buffer.data(),
                static_cast<int64_t>(buffer.size() * sizeof(float)));
}

} // namespace ttile::measure
