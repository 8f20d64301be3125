//===- CodeGen/Pack.cpp - Copy a tile of a tensor to scratch --------------===//

#include "CodeGen/Pack.h"

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
      llvm::Value *sourceOffset = cx.constant(0);
      llvm::Value *packedOffset = cx.constant(0);
      for (size_t a = 0; a < tensor.axes.size(); ++a) {
        llvm::Value *index = b.CreateAdd(origin[a], position[a]);
        if (axisMayOverrun(cx, tensor.axes[a]))
          index = b.CreateBinaryIntrinsic(
              llvm::Intrinsic::smin, index,
              cx.constant(tensor.axes[a].extent - 1));
        if (source.origin[a])
          index = b.CreateSub(index, source.origin[a]);
        sourceOffset = b.CreateAdd(
            sourceOffset, b.CreateMul(index, cx.constant(source.strides[a])));
        packedOffset = b.CreateAdd(
            packedOffset,
            b.CreateMul(position[a], cx.constant(buffer.strides[a])));
      }
      llvm::Value *value = b.CreateAlignedLoad(
          cx.f32, b.CreateInBoundsGEP(cx.f32, source.base, sourceOffset),
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
