//===- CodeGen/ScratchLayout.h - Where packed buffers live ------*- C++ -*-===//
//
// Pack atoms copy tiles into scratch memory that the caller provides (so
// that a kernel never allocates). Packs outside any parallel loop share one
// region; packs inside a parallel loop get one region per worker, since
// workers pack different tiles at the same time. Every buffer starts on a
// 64-byte boundary, a cache line and an AVX-512 vector.
//
// The outermost Pack of a constant tensor (Spec.h) takes no scratch: its
// tiles were laid out ahead of the runs, one after another, in the buffer
// the kernel receives for the tensor (Prepack.h); ConstantLayout says how.
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
  /// The tile was laid out ahead (ConstantLayout): nothing to copy.
  bool laidOutAhead = false;
  std::vector<int64_t> extents; ///< Per axis of the tensor: the footprint.
  std::vector<int64_t> strides; ///< Per axis of the tensor, in elements.
};

/// A constant tensor as the kernel reads it: every tile of its outermost
/// Pack, laid out as that Pack's buffer, one after another in row-major
/// order of the tiles' positions along the tensor's axes.
struct ConstantLayout {
  PackBuffer tile;            ///< One tile's extents and strides.
  std::vector<int> axisOrder; ///< The Pack's, outermost first.
  std::vector<int64_t> step;  ///< Per axis: from one tile's origin to the next.
  std::vector<int64_t> tiles; ///< Per axis: the tiles along it.
  int64_t tileElements = 0;   ///< From one tile to the next, 64-byte aligned.

  int64_t elements() const;
};

struct ScratchLayout {
  static constexpr int64_t kAlignment = 64;

  int64_t sharedBytes = 0;
  int64_t perWorkerBytes = 0;
  std::map<const scheme::TileNode *, PackBuffer> buffers;
  /// By tensor index: the constant tensors the kernel reads laid out.
  std::map<int, ConstantLayout> constants;

  static ScratchLayout plan(const scheme::TileTree &tree,
                            const spec::Spec &spec);
  /// Bytes a caller provides for `workers` parallel workers.
  int64_t bytesFor(int workers) const {
    return sharedBytes + perWorkerBytes * workers;
  }
};

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_SCRATCHLAYOUT_H
