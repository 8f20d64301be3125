//===- CodeGen/ZeroPadding.cpp - Inputs that read zero past their edge ----===//

#include "CodeGen/ZeroPadding.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include <algorithm>

namespace ttile::codegen {
namespace {

/// The innermost zero-padded axis of `tensor`.
size_t innermostPaddedAxis(const spec::Tensor &tensor) {
  size_t last = 0;
  for (size_t a = 0; a < tensor.axes.size(); ++a)
    if (tensor.axes[a].zeroPadded)
      last = a;
  return last;
}

/// A constant row of zeros as long as `tensor`'s elements below its
/// innermost padded axis, one per tensor and module.
llvm::Value *zeroRow(EmitContext &cx, int tensor) {
  const spec::Tensor &t = cx.spec.tensors[tensor];
  std::string name = "ttile.zeros." + t.name;
  if (llvm::GlobalVariable *existing = cx.module.getNamedGlobal(name))
    return existing;
  int64_t elements = t.strides()[innermostPaddedAxis(t)];
  auto *type = llvm::ArrayType::get(cx.f32, static_cast<uint64_t>(elements));
  auto *row = new llvm::GlobalVariable(
      cx.module, type, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantAggregateZero::get(type), name);
  row->setAlignment(llvm::Align(64));
  return row;
}

/// i1: `index` lies in [0, extent), as one unsigned comparison.
llvm::Value *inside(EmitContext &cx, llvm::Value *index, int64_t extent) {
  return cx.builder.CreateICmpULT(index, cx.constant(extent));
}

llvm::Value *allOf(EmitContext &cx, llvm::Value *all, llvm::Value *one) {
  return all ? cx.builder.CreateAnd(all, one) : one;
}

} // namespace

llvm::Value *zeroPaddedElementPointer(EmitContext &cx, const TensorView &view,
                                      int tensor,
                                      std::span<llvm::Value *const> axisIndex) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &t = cx.spec.tensors[tensor];
  size_t lastPadded = innermostPaddedAxis(t);
  // The row: every axis up to the innermost padded one.
  llvm::Value *rowOffset = cx.constant(0);
  llvm::Value *rowInside = nullptr;
  for (size_t a = 0; a <= lastPadded; ++a) {
    if (t.axes[a].zeroPadded)
      rowInside = allOf(cx, rowInside, inside(cx, axisIndex[a], t.axes[a].extent));
    rowOffset = b.CreateAdd(
        rowOffset, b.CreateMul(axisIndex[a], cx.constant(view.strides[a])));
  }
  // The select takes the row's offset from an in-bounds address only, so
  // that no pointer is ever formed outside the tensor.
  llvm::Value *row =
      b.CreateSelect(rowInside, b.CreateGEP(cx.f32, view.base, rowOffset),
                     zeroRow(cx, tensor), "row");
  llvm::Value *inRow = cx.constant(0);
  for (size_t a = lastPadded + 1; a < t.axes.size(); ++a)
    inRow = b.CreateAdd(inRow,
                        b.CreateMul(axisIndex[a], cx.constant(view.strides[a])));
  return b.CreateInBoundsGEP(cx.f32, row, inRow);
}

bool isPaddingVersionPoint(const EmitContext &cx, const LoopEnv &env,
                           const TileNode &node) {
  if (env.paddingVersioned)
    return false;
  auto usesPaddedDim = [&](DimId dim) {
    for (size_t t = 0; t < env.views.size(); ++t) {
      if (!env.views[t].zeroPadded)
        continue;
      for (const spec::TensorAxis &axis : cx.spec.tensors[t].axes)
        if (axis.zeroPadded && axis.index.uses(dim))
          return true;
    }
    return false;
  };
  bool anyPadded = std::any_of(env.views.begin(), env.views.end(),
                               [](const TensorView &v) { return v.zeroPadded; });
  return anyPadded && !loopsAlong(node, usesPaddedDim);
}

llvm::Value *tileInsidePadding(EmitContext &cx, const LoopEnv &env,
                               const TileNode &node) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *all = b.getTrue();
  for (size_t t = 0; t < env.views.size(); ++t) {
    if (!env.views[t].zeroPadded)
      continue;
    for (const spec::TensorAxis &axis : cx.spec.tensors[t].axes) {
      if (!axis.zeroPadded)
        continue;
      // Coefficients are positive: the tile's first index is at its base,
      // its last at base + coeff * (extent - 1) along every dimension.
      llvm::Value *first = cx.constant(axis.index.constant);
      int64_t span = 0;
      for (const spec::AffineExpr::Term &term : axis.index.terms) {
        first = b.CreateAdd(first, b.CreateMul(env.index[term.dim],
                                               cx.constant(term.coeff)));
        span += term.coeff * (node.extent[term.dim] - 1);
      }
      llvm::Value *last = b.CreateAdd(first, cx.constant(span));
      all = b.CreateAnd(all, b.CreateAnd(inside(cx, first, axis.extent),
                                         inside(cx, last, axis.extent)));
    }
  }
  return all;
}

LoopEnv withoutPaddingChecks(const LoopEnv &env) {
  LoopEnv interior = env;
  for (TensorView &view : interior.views)
    view.zeroPadded = false;
  interior.paddingVersioned = true;
  return interior;
}

} // namespace ttile::codegen
