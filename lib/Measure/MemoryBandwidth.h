//===- Measure/MemoryBandwidth.h - Measured DRAM read bandwidth -*- C++ -*-===//
//
// The roof of memory-bound layers (depthwise convolutions), whose figures
// are a percentage of this rather than of the FMA peak: the bytes per second
// one thread streams from memory, summing a buffer four times the size of
// the last-level cache with a JIT-compiled vector loop. Like the peak, it
// is measured once per process and reports the fastest batch.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_MEMORYBANDWIDTH_H
#define TTILE_MEASURE_MEMORYBANDWIDTH_H

#include "Measure/Benchmark.h"

#include <cstdint>

namespace ttile::measure {

struct BandwidthInfo {
  double bytesPerSecond = 0; ///< Read bandwidth of one thread, fastest batch.
  int64_t bufferBytes = 0;   ///< Bytes read per call.
  Measurement measurement;
};

/// Measured on first use (about 0.3 s, with a buffer of four times the
/// last-level cache while it runs), then cached for the life of the process.
/// Safe to call from several threads.
const BandwidthInfo &measuredBandwidth();

/// measuredBandwidth().bytesPerSecond.
double measuredBandwidthBytesPerSecond();

} // namespace ttile::measure

#endif // TTILE_MEASURE_MEMORYBANDWIDTH_H
