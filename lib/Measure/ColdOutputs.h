//===- Measure/ColdOutputs.h - Outputs the caches do not hold ---*- C++ -*-===//
//
// Where a timed call writes its output when a kernel is timed as a layer of
// a network runs rather than as a benchmark's loop (ttile-gen --measure
// --caches cold-output): a layer's output buffer was last written an
// inference ago, so none of its lines is in the caches, which are full of
// what the other layers wrote; a benchmark's loop writes the same buffer
// again and again, from the caches. The two rank schemes differently: a
// scheme that writes its output in tiles scattered over many pages waits on
// each line it misses, where one that writes rows in order has them
// streamed in by the hardware prefetchers (MobileNet v2's first layer, 3x3
// stride 2 from 3 to 32 channels at 112x112 on Zen 4: 195-220 us for both
// from the caches, 295-300 in strips of columns and 213-218 row by row
// with cold outputs; docs/benchmarks/onnxruntime.md).
//
// Each call writes to the next place of a region twice the last-level
// cache, so that a place was last written a region's worth of writes ago:
// by then its lines have left every cache, written back, and the caches
// hold the places written since, dirty, as a network's caches do. The
// inputs stay where they are, in the caches, as the input a layer's
// predecessor has just written is.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_COLDOUTPUTS_H
#define TTILE_MEASURE_COLDOUTPUTS_H

#include "Measure/AlignedBuffer.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ttile::measure {

class ColdOutputs {
public:
  /// For outputs of `outputBytes`: a region of `regionBytes`, by default
  /// cacheFlushBytes(), twice the last-level cache. An output larger than
  /// half the region does not stay in the caches between calls anyway: it
  /// is then not moved (arguments() returns the caller's).
  explicit ColdOutputs(int64_t outputBytes, int64_t regionBytes = 0);

  /// Places in the region, each 64-byte aligned; 0: outputs are not moved.
  int64_t places() const { return places_; }

  /// The next place, round robin, for an output of `outputBytes`; null
  /// where outputs are not moved.
  float *next();

  /// `base`, the arguments of a call in Spec::tensors order (output first),
  /// with the output moved to the next place, round robin. The span stays
  /// valid until the next call.
  std::span<float *const> arguments(std::span<float *const> base);

private:
  int64_t placeFloats_ = 0;
  int64_t places_ = 0;
  int64_t next_ = 0;
  std::optional<AlignedBuffer> region_;
  std::vector<float *> arguments_;
};

} // namespace ttile::measure

#endif // TTILE_MEASURE_COLDOUTPUTS_H
