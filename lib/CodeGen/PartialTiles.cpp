//===- CodeGen/PartialTiles.cpp - Unmasked code for whole tiles -----------===//

#include "CodeGen/PartialTiles.h"

namespace ttile::codegen {

bool isPartialVersionPoint(const EmitContext &cx, const LoopEnv &env,
                           const TileNode &node) {
  if (env.partialVersioned)
    return false;
  bool anyPartial = false;
  for (size_t d = 0; d < cx.spec.dims.size(); ++d) {
    if (!cx.partial[d])
      continue;
    if (node.extent[d] > cx.spec.dims[d].size)
      return false;
    anyPartial = true;
  }
  return anyPartial &&
         !loopsAlong(node, [&](DimId dim) { return cx.partial[dim]; });
}

llvm::Value *tileInsideTensors(EmitContext &cx, const LoopEnv &env,
                               const TileNode &node) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *all = b.getTrue();
  for (size_t d = 0; d < cx.spec.dims.size(); ++d)
    if (cx.partial[d])
      all = b.CreateAnd(
          all, b.CreateICmpSLE(
                   b.CreateAdd(env.index[d], cx.constant(node.extent[d])),
                   cx.constant(cx.spec.dims[d].size)));
  return all;
}

} // namespace ttile::codegen
