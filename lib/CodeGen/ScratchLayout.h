//===- CodeGen/ScratchLayout.h - Where packed buffers live ------*- C++ -*-===//
//
// Pack atoms copy tiles into scratch memory that the caller provides (so
// that a kernel never allocates). Packs outside any parallel loop share one
// region; packs inside a parallel loop get one region per worker, since
// workers pack different tiles at the same time. Every buffer starts on a
// 64-byte boundary, a cache line and an AVX-512 vector.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_SCRATCHLAYOUT_H
#define TTILE_CODEGEN_SCRATCHLAYOUT_H

#include "Scheme/Tiling.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <map>

namespace ttile::codegen {

struct PackBuffer {
  int64_t offset = 0;   ///< Bytes from the start of its region.
  bool perWorker = false;
  std::vector<int64_t> extents; ///< Per axis of the tensor: the footprint.
  std::vector<int64_t> strides; ///< Per axis of the tensor, in elements.
};

struct ScratchLayout {
  static constexpr int64_t kAlignment = 64;

  int64_t sharedBytes = 0;
  int64_t perWorkerBytes = 0;
  std::map<const scheme::TileNode *, PackBuffer> buffers;

  static ScratchLayout plan(const scheme::TileTree &tree,
                            const spec::Spec &spec);
  /// Bytes a caller provides for `workers` parallel workers.
  int64_t bytesFor(int workers) const {
    return sharedBytes + perWorkerBytes * workers;
  }
};

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_SCRATCHLAYOUT_H
