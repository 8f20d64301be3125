//===- CodeGen/PartialTiles.h - Unmasked code for whole tiles ---*- C++ -*-===//
//
// A dimension covered beyond its size (28269 output channels in tiles of
// 64) makes its accesses masked or clamped (TensorAccess.h), and the mask
// of a vector load is computed from the tile's index wherever it is: the
// weights' loads in the innermost loop were masked loads in every tile,
// although only the last one reaches past the tensor. On Zen 5 that cost
// Yolo9000-23 a tenth of its speed (82% of peak against 93% with K a
// multiple of 16).
//
// So the kernel is versioned, as for padding (ZeroPadding.h): at the
// outermost node whose subtree no longer loops along a partial dimension,
// it tests whether the node's whole tile lies inside every dimension, and
// runs a copy of the subtree without masks or clamps when it does. Only
// the tiles at the ends run the masked copy.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PARTIALTILES_H
#define TTILE_CODEGEN_PARTIALTILES_H

#include "CodeGen/EmitContext.h"

namespace ttile::codegen {

/// Whether `node` is where to version for partial tiles: not versioned yet,
/// its subtree loops along no partial dimension, and its tile fits inside
/// every partial dimension (else no tile of it is whole).
bool isPartialVersionPoint(const EmitContext &cx, const LoopEnv &env,
                           const TileNode &node);

/// i1: the tile `node` covers from `env` lies inside every dimension.
llvm::Value *tileInsideTensors(EmitContext &cx, const LoopEnv &env,
                               const TileNode &node);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PARTIALTILES_H
