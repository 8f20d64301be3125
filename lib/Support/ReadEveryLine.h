//===- Support/ReadEveryLine.h - Bring a buffer into the caches -*- C++ -*-===//
//
// One load per 64-byte line, in memory order, brings a buffer into the
// calling core's caches (as much of it as they hold) at the speed of a
// sequential read, which the hardware prefetchers follow. Two uses: a cold
// measurement evicts a kernel's tensors by reading a larger buffer
// (Measure/CacheFlush.h), and a network's first layer brings in an image
// that its tiles would otherwise read from memory in an order no
// prefetcher follows (Runtime's Conv2D, Layout::NCHWToNHWC).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_READEVERYLINE_H
#define TTILE_SUPPORT_READEVERYLINE_H

#include <cstdint>

namespace ttile {

/// Reads one float of every 64-byte line of the `bytes` bytes at `data`
/// (4-byte aligned), in order.
void readEveryLine(const float *data, int64_t bytes);

} // namespace ttile

#endif // TTILE_SUPPORT_READEVERYLINE_H
