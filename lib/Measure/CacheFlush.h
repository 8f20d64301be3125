//===- Measure/CacheFlush.h - Evict data from the caches --------*- C++ -*-===//
//
// For cold-cache measurements (thesis 4.6): reading a buffer twice the
// size of the last-level cache leaves none of a kernel's tensors in any
// level of the calling core's caches. Only reads: writing would leave dirty
// lines whose write-backs land in the kernel's timed run, and a large
// memset uses non-temporal stores that bypass the caches altogether.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_CACHEFLUSH_H
#define TTILE_MEASURE_CACHEFLUSH_H

#include <cstdint>

namespace ttile::measure {

/// Bytes flushCaches() walks through: twice the host's last-level cache.
int64_t cacheFlushBytes();

/// Evicts the calling thread's data from the caches. The buffer is
/// allocated on first use, once per thread.
void flushCaches();

} // namespace ttile::measure

#endif // TTILE_MEASURE_CACHEFLUSH_H
