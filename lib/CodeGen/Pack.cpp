//===- CodeGen/Pack.cpp - Copy a tile of a tensor to scratch --------------===//

#include "CodeGen/Pack.h"

#include "CodeGen/ZeroPadding.h"

#include <functional>

namespace ttile::codegen {
namespace {


/// Start of the tile along each axis of the tensor: the axis index at the
/// tile's base point.
std::vector<llvm::Value *> tileOrigin(EmitContext &cx, const LoopEnv &env,
                                      const spec::Tensor &tensor) {
  llvm::IRBuilder<> &b = cx.builder;
  std::vector<llvm::Value *> origin;
  for (const spec::TensorAxis &axis : tensor.axes) {
    llvm::Value *value = cx.constant(axis.index.constant);
    for (const spec::AffineExpr::Term &term : axis.index.terms)
      value = b.CreateAdd(value,
                          b.CreateMul(env.index[term.dim], cx.constant(term.coeff)));
    origin.push_back(value);
  }
  return origin;
}

bool axisMayOverrun(const EmitContext &cx, const spec::TensorAxis &axis) {
  for (const spec::AffineExpr::Term &term : axis.index.terms)
    if (cx.partial[term.dim])
      return true;
  return false;
}

/// The source element at `index` (per axis): through the padding check
/// when the source is a zero-padded view, else directly.
llvm::Value *sourcePointer(EmitContext &cx, const TensorView &source,
                           int tensor, std::span<llvm::Value *const> index) {
  if (source.zeroPadded)
    return zeroPaddedElementPointer(cx, source, tensor, index);
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *offset = cx.constant(0);
  for (size_t a = 0; a < index.size(); ++a)
    offset = b.CreateAdd(offset,
                         b.CreateMul(index[a], cx.constant(source.strides[a])));
  return b.CreateInBoundsGEP(cx.f32, source.base, offset);
}

} // namespace

LoopEnv emitPack(EmitContext &cx, const TileNode &node,
                 const PackBuffer &buffer, const LoopEnv &env) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &tensor = cx.spec.tensors[node.tensor];
  const TensorView &source = env.views[node.tensor];
  std::vector<llvm::Value *> origin = tileOrigin(cx, env, tensor);

  llvm::Value *region = buffer.perWorker ? env.workerScratch : env.sharedScratch;
  llvm::Value *packed = b.CreateInBoundsGEP(b.getInt8Ty(), region,
                                            cx.constant(buffer.offset),
                                            "pack." + tensor.name);

  // One loop per axis in the packed order; the innermost is contiguous in
  // the buffer, so the optimizer vectorizes it when the source is too.
  std::vector<llvm::Value *> position(tensor.axes.size());
  std::function<void(size_t)> copyAxis = [&](size_t level) {
    if (level == node.axisOrder.size()) {
      std::vector<llvm::Value *> sourceIndex;
      llvm::Value *packedOffset = cx.constant(0);
      for (size_t a = 0; a < tensor.axes.size(); ++a) {
        llvm::Value *index = b.CreateAdd(origin[a], position[a]);
        // A padded axis reads zeros past its end instead (ZeroPadding.h).
        if (axisMayOverrun(cx, tensor.axes[a]) && !source.zeroPadded)
          index = b.CreateBinaryIntrinsic(
              llvm::Intrinsic::smin, index,
              cx.constant(tensor.axes[a].extent - 1));
        if (source.origin[a])
          index = b.CreateSub(index, source.origin[a]);
        sourceIndex.push_back(index);
        packedOffset = b.CreateAdd(
            packedOffset,
            b.CreateMul(position[a], cx.constant(buffer.strides[a])));
      }
      llvm::Value *value = b.CreateAlignedLoad(
          cx.f32, sourcePointer(cx, source, node.tensor, sourceIndex),
          kElementAlign);
      b.CreateAlignedStore(
          value, b.CreateInBoundsGEP(cx.f32, packed, packedOffset),
          kElementAlign);
      return;
    }
    int axis = node.axisOrder[level];
    cx.countedLoop("pack." + tensor.axes[axis].name, buffer.extents[axis], {},
                   [&](llvm::Value *iv, std::vector<llvm::Value *>) {
                     position[axis] = iv;
                     copyAxis(level + 1);
                     return std::vector<llvm::Value *>{};
                   });
  };
  copyAxis(0);

  LoopEnv inner = env;
  inner.views[node.tensor] = TensorView{packed, buffer.strides, origin};
  return inner;
}

} // namespace ttile::codegen
