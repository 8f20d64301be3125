//===- CodeGen/Prefetch.h - Stream the tile a Pack copies next --*- C++ -*-===//
//
// A Pack whose tensor does not fit the L2 reads each tile from memory, and
// the first reads of a tile wait for memory while the compute units idle.
// So while the loops below the Pack work on one tile, the kernel prefetches
// the next one into the L2, spread evenly over the iterations of a loop
// below the Pack: each step prefetches the lines at its share of the way
// through the next tile. Prefetches neither fault nor change a result,
// so one past the last tile, or past a tensor's end, is harmless.
//
// - A constant tensor laid out ahead (Prepack.h): the next tile follows the
//   current one in the layout. On Yolo9000-23 (116 MB of weights, 256 KB
//   tiles) the first row of microkernels over a tile pulled it in at memory
//   speed, a fifth of the speed at which they consume it.
// - A tile copied at run time: the next tile is the one the next iteration
//   of the serial loops around the Pack copies, the innermost loop stepping
//   first (at the last iteration of every loop, the first tile again). Its
//   rows are as many streams through memory as the tile has rows: TCCG 7
//   (`afbce,df->edcba`) packs 48 x 48 rows of 192 bytes of A at a time, 7
//   MB apart, far more streams than a hardware prefetcher follows, and
//   spent most of its time in that copy, waiting for memory.
//
// Tensors that fit the L2 stay there from one tile, or one run, to the
// next and get none: the prefetch would only cost instructions. Nor does a
// tile copied at run time whose loops below compute more than 64 FLOPs a
// byte of it: its fetch is hidden anyway (Prefetch.cpp). A step prefetches
// 16 lines at most, in the outermost loop below the Pack whose iterations
// allow it (every register tile where none does; no stream where even
// those are too few): more, unrolled, made kernels compile for seconds.
// A stream stops at a parallel loop (ParallelLoop.h) and a Lambda's parts:
// workers run the iterations below it in any order, and share no counter,
// and a part's next tile is not along its loops.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PREFETCH_H
#define TTILE_CODEGEN_PREFETCH_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

#include <optional>

namespace ttile::codegen {

/// The bytes above which a Pack's tensor is streamed: the host's L2 (per
/// core), or never on a host without one.
int64_t streamedConstantBytes();

/// Starts the stream of the tile after `tile` (the current tile of the
/// laid-out tensor of Pack `node`), or nothing where the tensor is one tile
/// or fits streamedConstantBytes().
std::optional<PrefetchStream>
startPrefetchStream(EmitContext &cx, const TileNode &node,
                    const ConstantLayout &layout, llvm::Value *tile);

/// Starts the stream of the tile that Pack `node` copies next from
/// `source` (into `buffer`; the current tile's at `origin`), or nothing
/// where its tensor fits streamedConstantBytes() or no serial loop around
/// it moves the tile.
std::optional<PrefetchStream>
startSourcePrefetch(EmitContext &cx, const TileNode &node,
                    const PackBuffer &buffer, const TensorView &source,
                    std::span<llvm::Value *const> origin, const LoopEnv &env);

/// Emits one register-tile execution's share of the stream.
void emitPrefetchStep(EmitContext &cx, const PrefetchStream &stream);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PREFETCH_H
