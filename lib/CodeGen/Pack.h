//===- CodeGen/Pack.h - Copy a tile of a tensor to scratch ------*- C++ -*-===//
//
// Pack(X[,perm]) (thesis 3.6) copies the footprint of X below the atom into
// an aligned scratch buffer, in the buffer's axis order, and redirects every
// access below to it. The copy clamps indices at the tensor's edges, like
// every input access of a partial tile.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PACK_H
#define TTILE_CODEGEN_PACK_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

namespace ttile::codegen {

/// Emits the copy for the Pack node and returns the environment below it.
LoopEnv emitPack(EmitContext &cx, const TileNode &node,
                 const PackBuffer &buffer, const LoopEnv &env);

/// Per axis of the tensor `env` tiles: its index at the tile's base point.
std::vector<llvm::Value *> tileOrigin(EmitContext &cx, const LoopEnv &env,
                                      const spec::Tensor &tensor);

/// Emits the loops that copy the tile of tensor `tensor` at `origin` from
/// `source` to `packed`, laid out as `buffer` says with the axes in
/// `axisOrder` (outermost first): the copy of a Pack at run time, or ahead
/// of time for a constant tensor (Prepack.h).
void emitTileCopy(EmitContext &cx, int tensor, std::span<const int> axisOrder,
                  const PackBuffer &buffer, const TensorView &source,
                  std::span<llvm::Value *const> origin, llvm::Value *packed);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PACK_H
