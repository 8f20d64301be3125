//===- CodeGen/ZeroPadding.cpp - Inputs that read zero past their edge ----===//

#include "CodeGen/ZeroPadding.h"

#include "CodeGen/TensorAccess.h"
#include "Scheme/Footprint.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <set>

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

/// i64: the index along `axis` of the first element of the tile at `env`.
llvm::Value *firstAlong(EmitContext &cx, const LoopEnv &env,
                        const spec::TensorAxis &axis) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *first = cx.constant(axis.index.constant);
  for (const spec::AffineExpr::Term &term : axis.index.terms)
    first = b.CreateAdd(
        first, b.CreateMul(env.index[term.dim], cx.constant(term.coeff)));
  return first;
}

/// From the first to the last index along `axis` of `node`'s tile:
/// coefficients are positive, so the last index is the span's minus one
/// past the first.
int64_t spanAlong(const spec::TensorAxis &axis, const TileNode &node) {
  return scheme::axisSpan(axis, node.extent) - 1;
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

bool paddedAlongVector(const EmitContext &cx, int tensor) {
  const spec::TensorAxis &last = cx.spec.tensors[tensor].axes.back();
  return cx.vectorDim && last.zeroPadded && last.index.uses(*cx.vectorDim);
}

llvm::Value *lanesInsidePadding(EmitContext &cx, int tensor,
                                std::span<llvm::Value *const> axisIndex,
                                int64_t stride) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &t = cx.spec.tensors[tensor];
  const size_t last = t.axes.size() - 1;
  llvm::Value *row = b.getTrue();
  for (size_t a = 0; a < last; ++a)
    if (t.axes[a].zeroPadded)
      row = b.CreateAnd(row, inside(cx, axisIndex[a], t.axes[a].extent));
  llvm::Value *lane = b.CreateAdd(
      b.CreateVectorSplat(cx.lanes, axisIndex[last]),
      b.CreateMul(cx.laneIndices(),
                  b.CreateVectorSplat(cx.lanes, cx.constant(stride))));
  return b.CreateAnd(
      b.CreateVectorSplat(cx.lanes, row),
      b.CreateICmpULT(lane, b.CreateVectorSplat(
                                cx.lanes, cx.constant(t.axes[last].extent))));
}

llvm::Value *loadPaddedVector(EmitContext &cx, const LoopEnv &env, int tensor,
                              std::span<const int64_t> offsets) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &t = cx.spec.tensors[tensor];
  const size_t last = t.axes.size() - 1;
  llvm::Value *zeros = llvm::Constant::getNullValue(cx.valueType());
  llvm::Value *lanesIn = nullptr; // Lanes outside the padding; null: all.
  if (env.border) {
    // The pattern gives every position: a row in the padding reads zeros,
    // and along the last axis each lane (vectorStride apart) is inside or
    // not.
    const std::vector<AxisBorder> &axes = env.border->axes[tensor];
    std::vector<bool> lanesInside(static_cast<size_t>(cx.lanes), true);
    for (size_t a = 0; a < axes.size(); ++a) {
      if (!axes[a].padded)
        continue;
      int64_t position = 0;
      for (const spec::AffineExpr::Term &term : t.axes[a].index.terms)
        position +=
            term.coeff * (env.border->delta[term.dim] + offsets[term.dim]);
      const int64_t lastInside = axes[a].span - axes[a].over;
      if (a != last) {
        if (position < axes[a].under || position > lastInside)
          return zeros;
        continue;
      }
      const int64_t stride = vectorStride(cx, tensor);
      for (int lane = 0; lane < cx.lanes; ++lane)
        lanesInside[static_cast<size_t>(lane)] =
            position + stride * lane >= axes[a].under &&
            position + stride * lane <= lastInside;
    }
    if (std::none_of(lanesInside.begin(), lanesInside.end(),
                     [](bool in) { return in; }))
      return zeros;
    if (!std::all_of(lanesInside.begin(), lanesInside.end(),
                     [](bool in) { return in; })) {
      std::vector<llvm::Constant *> bits;
      for (bool in : lanesInside)
        bits.push_back(b.getInt1(in));
      lanesIn = llvm::ConstantVector::get(bits);
    }
  } else {
    // Tested at run time.
    std::vector<llvm::Value *> axisIndex;
    for (const spec::TensorAxis &axis : t.axes) {
      llvm::Value *index = cx.constant(axis.index.constant);
      for (const spec::AffineExpr::Term &term : axis.index.terms)
        index = b.CreateAdd(
            index, b.CreateMul(b.CreateAdd(env.index[term.dim],
                                           cx.constant(offsets[term.dim])),
                               cx.constant(term.coeff)));
      axisIndex.push_back(index);
    }
    lanesIn =
        lanesInsidePadding(cx, tensor, axisIndex, vectorStride(cx, tensor));
  }
  llvm::Value *tail = laneMask(cx, env, offsets);
  llvm::Value *mask = lanesIn && tail ? b.CreateAnd(lanesIn, tail)
                      : lanesIn        ? lanesIn
                                       : tail;
  llvm::Value *address = elementPointer(cx, env, tensor, offsets,
                                        /*clampPartial=*/true,
                                        /*maskedPadding=*/mask != nullptr);
  return loadVector(cx, address, vectorStride(cx, tensor), mask);
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
      llvm::Value *first = firstAlong(cx, env, axis);
      llvm::Value *last =
          b.CreateAdd(first, cx.constant(spanAlong(axis, node)));
      all = b.CreateAnd(all, b.CreateAnd(inside(cx, first, axis.extent),
                                         inside(cx, last, axis.extent)));
    }
  }
  return all;
}

namespace {

/// Combinations of index values enumerated for one padded axis, at most:
/// more, and the kernel keeps the checked copy.
constexpr int64_t kMaxIndexCombinations = 1 << 16;

/// The first and the last position along `axis` of `node`'s tile at the
/// index values `index` (per dimension; only the axis's are read).
std::pair<int64_t, int64_t> axisRange(const spec::TensorAxis &axis,
                                      const TileNode &node,
                                      const std::vector<int64_t> &index) {
  int64_t first = axis.index.constant;
  for (const spec::AffineExpr::Term &term : axis.index.terms)
    first += term.coeff * index[term.dim];
  return {first, first + spanAlong(axis, node)};
}

AxisBorder borderOf(const spec::TensorAxis &axis, int64_t first, int64_t last) {
  int64_t span = last - first;
  auto clamp = [&](int64_t past) { return std::clamp<int64_t>(past, 0, span + 1); };
  return {true, clamp(-first), clamp(last - (axis.extent - 1)), span};
}

/// The AxisBorders of `axis` over every combination of the index values
/// of its dimensions; nothing where a dimension is untracked or the
/// combinations are too many.
std::optional<std::set<AxisBorder>>
axisBorders(const LoopEnv &env, const spec::TensorAxis &axis,
            const TileNode &node) {
  int64_t combinations = 1;
  for (const spec::AffineExpr::Term &term : axis.index.terms) {
    const std::vector<int64_t> &values = env.indexValues[term.dim];
    if (values.empty())
      return std::nullopt;
    combinations *= static_cast<int64_t>(values.size());
    if (combinations > kMaxIndexCombinations)
      return std::nullopt;
  }
  std::set<AxisBorder> borders;
  std::vector<int64_t> index(env.indexValues.size(), 0);
  for (int64_t n = 0; n < combinations; ++n) {
    int64_t rest = n;
    for (const spec::AffineExpr::Term &term : axis.index.terms) {
      const std::vector<int64_t> &values = env.indexValues[term.dim];
      index[term.dim] = values[static_cast<size_t>(rest) % values.size()];
      rest /= static_cast<int64_t>(values.size());
    }
    auto [first, last] = axisRange(axis, node, index);
    borders.insert(borderOf(axis, first, last));
  }
  return borders;
}

} // namespace

std::optional<std::vector<BorderPattern>>
borderPatterns(const EmitContext &cx, const LoopEnv &env, const TileNode &node) {
  BorderPattern blank;
  blank.delta.assign(cx.spec.dims.size(), 0);
  for (const spec::Tensor &tensor : cx.spec.tensors)
    blank.axes.emplace_back(tensor.axes.size());
  std::vector<BorderPattern> patterns{blank};
  // Axes use distinct dimensions (h + r, w + s), so the patterns are the
  // product of every padded axis's borders.
  for (size_t t = 0; t < env.views.size(); ++t) {
    if (!env.views[t].zeroPadded)
      continue;
    const spec::Tensor &tensor = cx.spec.tensors[t];
    for (size_t a = 0; a < tensor.axes.size(); ++a) {
      if (!tensor.axes[a].zeroPadded)
        continue;
      std::optional<std::set<AxisBorder>> borders =
          axisBorders(env, tensor.axes[a], node);
      if (!borders ||
          patterns.size() * borders->size() > kMaxBorderCopies)
        return std::nullopt;
      std::vector<BorderPattern> product;
      for (const BorderPattern &pattern : patterns)
        for (const AxisBorder &border : *borders) {
          product.push_back(pattern);
          product.back().axes[t][a] = border;
        }
      patterns = std::move(product);
    }
  }
  return patterns;
}

llvm::Value *tileMatchesBorder(EmitContext &cx, const LoopEnv &env,
                               const BorderPattern &pattern) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *all = b.getTrue();
  for (size_t t = 0; t < pattern.axes.size(); ++t) {
    for (size_t a = 0; a < pattern.axes[t].size(); ++a) {
      const AxisBorder &border = pattern.axes[t][a];
      if (!border.padded)
        continue;
      const spec::TensorAxis &axis = cx.spec.tensors[t].axes[a];
      llvm::Value *first = firstAlong(cx, env, axis);
      // As borderOf: clamp(-first) and clamp(last - (extent - 1)).
      auto clamp = [&](llvm::Value *past) {
        llvm::Value *low =
            b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, past, cx.constant(0));
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, low,
                                       cx.constant(border.span + 1));
      };
      llvm::Value *under = clamp(b.CreateNeg(first));
      llvm::Value *over = clamp(b.CreateAdd(
          first, cx.constant(border.span - (axis.extent - 1))));
      all = b.CreateAnd(all, b.CreateICmpEQ(under, cx.constant(border.under)));
      all = b.CreateAnd(all, b.CreateICmpEQ(over, cx.constant(border.over)));
    }
  }
  return all;
}

LoopEnv withBorderPattern(const LoopEnv &env, BorderPattern pattern) {
  bool interior = true;
  for (const auto &axes : pattern.axes)
    for (const AxisBorder &border : axes)
      interior = interior && border.under == 0 && border.over == 0;
  if (interior)
    return withoutPaddingChecks(env);
  LoopEnv copy = env;
  copy.paddingVersioned = true;
  copy.border = std::move(pattern);
  return copy;
}

bool readsPadding(const EmitContext &cx, const LoopEnv &env, int tensor,
                  std::span<const int64_t> offsets) {
  const std::vector<AxisBorder> &axes = env.border->axes[tensor];
  for (size_t a = 0; a < axes.size(); ++a) {
    if (!axes[a].padded)
      continue;
    int64_t position = 0;
    for (const spec::AffineExpr::Term &term :
         cx.spec.tensors[tensor].axes[a].index.terms)
      position += term.coeff * (env.border->delta[term.dim] + offsets[term.dim]);
    if (position < axes[a].under || position > axes[a].span - axes[a].over)
      return true;
  }
  return false;
}

void advanceIndexValues(LoopEnv &env, DimId dim, int64_t offset, int64_t step,
                        int64_t tripCount) {
  if (env.border && tripCount == 1)
    env.border->delta[dim] += offset;
  std::vector<int64_t> &values = env.indexValues[dim];
  if (values.empty())
    return;
  std::set<int64_t> reached;
  for (int64_t value : values)
    for (int64_t i = 0; i < tripCount; ++i)
      reached.insert(value + offset + i * step);
  values.assign(reached.begin(), reached.end());
}

LoopEnv withoutPaddingChecks(const LoopEnv &env) {
  LoopEnv interior = env;
  for (TensorView &view : interior.views)
    view.zeroPadded = false;
  interior.paddingVersioned = true;
  return interior;
}

} // namespace ttile::codegen
