//===- CodeGen/Prefetch.h - Stream a laid-out constant tensor ---*- C++ -*-===//
//
// A constant tensor laid out ahead (Prepack.h) that does not fit the L2
// comes from memory at every run: its tiles are read one after another, and
// the first pass over each tile waits for memory while the compute units
// idle. On Yolo9000-23 (116 MB of weights, 256 KB tiles) the first row of
// microkernels over a tile pulls it in at memory speed, a fifth of the
// speed at which they consume it.
//
// So while the loops below the Pack work on one tile, the kernel prefetches
// the next one in the layout into the L2, spread evenly over the
// register-tile executions below the Pack: each execution prefetches the
// lines at its share of the way through the next tile. Prefetches neither
// fault nor change a result, so the one past the last tile is harmless.
// Tensors that fit the L2 stay there from one run to the next and get
// none: the prefetch would only cost instructions.
//
// A stream stops at a parallel loop (ParallelLoop.h): workers run the
// iterations below it in any order, and share no counter.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PREFETCH_H
#define TTILE_CODEGEN_PREFETCH_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

#include <optional>

namespace ttile::codegen {

/// The bytes above which a laid-out constant tensor is streamed: the host's
/// L2 (per core), or never on a host without one.
int64_t streamedConstantBytes();

/// Starts the stream of the tile after `tile` (the current tile of the
/// laid-out tensor of Pack `node`), or nothing where the tensor is one tile
/// or fits streamedConstantBytes().
std::optional<PrefetchStream>
startPrefetchStream(EmitContext &cx, const TileNode &node,
                    const ConstantLayout &layout, llvm::Value *tile);

/// Emits one register-tile execution's share of the stream.
void emitPrefetchStep(EmitContext &cx, const PrefetchStream &stream);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PREFETCH_H
