//===- CodeGen/TensorAccess.cpp - Loads, stores, masks --------------------===//

#include "CodeGen/TensorAccess.h"

#include "CodeGen/ZeroPadding.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

namespace ttile::codegen {
namespace {

/// Index along dimension d at the point, clamped to the dimension when asked.
llvm::Value *dimIndex(EmitContext &cx, const LoopEnv &env, DimId d,
                      int64_t offset, bool clamp) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *index = b.CreateAdd(env.index[d], cx.constant(offset));
  if (clamp && cx.mayOverrun(d, env)) {
    llvm::Value *lastValid = cx.constant(cx.spec.dims[d].size - 1);
    index = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, index, lastValid);
  }
  return index;
}

bool usesPartialDim(const EmitContext &cx, const LoopEnv &env,
                    const spec::Tensor &tensor) {
  for (size_t d = 0; d < cx.spec.dims.size(); ++d)
    if (cx.mayOverrun(static_cast<DimId>(d), env) &&
        tensor.uses(static_cast<DimId>(d)))
      return true;
  return false;
}

} // namespace

llvm::Value *laneMask(EmitContext &cx, const LoopEnv &env, Offsets offsets) {
  if (!cx.vectorDim || !cx.mayOverrun(*cx.vectorDim, env))
    return nullptr;
  llvm::IRBuilder<> &b = cx.builder;
  DimId v = *cx.vectorDim;
  llvm::Value *first = dimIndex(cx, env, v, offsets[v], /*clamp=*/false);
  llvm::Value *laneIndex =
      b.CreateAdd(b.CreateVectorSplat(cx.lanes, first), cx.laneIndices());
  return b.CreateICmpSLT(
      laneIndex,
      b.CreateVectorSplat(cx.lanes, cx.constant(cx.spec.dims[v].size)));
}

namespace {

/// The lanes of the access at `offsets` that fall inside the output: the
/// vectorized dimension's tail, and rows of partial unrolled dimensions.
/// nullptr when every lane is valid. Where the lanes are summed, the one
/// element's validity, an i1.
llvm::Value *outputMask(EmitContext &cx, const LoopEnv &env, Offsets offsets) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &output = cx.spec.output();
  llvm::Value *rowValid = nullptr;
  for (size_t i = 0; i < cx.spec.dims.size(); ++i) {
    DimId d = static_cast<DimId>(i);
    if (!cx.mayOverrun(d, env) || !output.uses(d) || d == cx.vectorDim)
      continue;
    llvm::Value *valid =
        b.CreateICmpSLT(dimIndex(cx, env, d, offsets[d], /*clamp=*/false),
                        cx.constant(cx.spec.dims[d].size));
    rowValid = rowValid ? b.CreateAnd(rowValid, valid) : valid;
  }
  if (cx.lanesSummed)
    return rowValid;
  llvm::Value *laneValid = laneMask(cx, env, offsets);
  if (!rowValid)
    return laneValid;
  llvm::Value *rows = b.CreateVectorSplat(cx.lanes, rowValid);
  return laneValid ? b.CreateAnd(rows, laneValid) : rows;
}

/// Masked accesses work on vectors; a scalar kernel uses one-lane vectors.
llvm::FixedVectorType *maskedType(const EmitContext &cx) {
  return llvm::FixedVectorType::get(cx.f32, cx.lanes);
}

llvm::Value *toValueType(EmitContext &cx, llvm::Value *vector) {
  if (cx.lanes == 1)
    return cx.builder.CreateExtractElement(vector, uint64_t{0});
  return vector;
}

llvm::Value *toMaskedType(EmitContext &cx, llvm::Value *value) {
  if (cx.lanes == 1)
    return cx.builder.CreateInsertElement(
        llvm::PoisonValue::get(maskedType(cx)), value, uint64_t{0});
  return value;
}

} // namespace

llvm::Value *elementPointer(EmitContext &cx, const LoopEnv &env, int tensor,
                            Offsets offsets, bool clampPartial,
                            bool maskedPadding) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &t = cx.spec.tensors[tensor];
  const TensorView &view = env.views[tensor];
  std::vector<llvm::Value *> axisIndex;
  for (size_t a = 0; a < t.axes.size(); ++a) {
    const spec::AffineExpr &index = t.axes[a].index;
    llvm::Value *axis = cx.constant(index.constant);
    for (const spec::AffineExpr::Term &term : index.terms) {
      llvm::Value *dim =
          dimIndex(cx, env, term.dim, offsets[term.dim], clampPartial);
      axis = b.CreateAdd(axis, b.CreateMul(dim, cx.constant(term.coeff)));
    }
    if (view.origin[a])
      axis = b.CreateSub(axis, view.origin[a]);
    axisIndex.push_back(axis);
  }
  // In a copy for border tiles, only reads known to be inside get here, or
  // masked ones.
  if (view.zeroPadded && !env.border && !maskedPadding)
    return zeroPaddedElementPointer(cx, view, tensor, axisIndex);
  llvm::Value *offset = cx.constant(0);
  for (size_t a = 0; a < t.axes.size(); ++a)
    offset = b.CreateAdd(offset,
                         b.CreateMul(axisIndex[a], cx.constant(view.strides[a])));
  // Only a masked access may form an address past the end of a tensor, so
  // every other address is in bounds.
  bool inBounds =
      !maskedPadding && (clampPartial || !usesPartialDim(cx, env, t));
  return inBounds ? b.CreateInBoundsGEP(cx.f32, view.base, offset)
                  : b.CreateGEP(cx.f32, view.base, offset);
}

int64_t vectorStride(const EmitContext &cx, int tensor) {
  // The axis that holds the vectorized dimension, contiguous in the
  // tensor or in the packed copy read (Scheme/Validate.h).
  const spec::Tensor &t = cx.spec.tensors[tensor];
  std::optional<int> axis =
      cx.vectorDim ? t.axisOf(*cx.vectorDim) : std::nullopt;
  return axis ? t.axes[*axis].index.coeffOf(*cx.vectorDim) : 1;
}

llvm::Value *loadVector(EmitContext &cx, llvm::Value *address, int64_t stride,
                        llvm::Value *mask) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Type *type = cx.valueType();
  if (stride == 1 || cx.lanes == 1) {
    if (!mask)
      return b.CreateAlignedLoad(type, address, kElementAlign);
    return b.CreateMaskedLoad(type, address, kElementAlign, mask,
                              llvm::Constant::getNullValue(type));
  }
  // The span's elements between the lanes stay off, the one after the last
  // lane too: nothing past the last lane is read.
  const int span = static_cast<int>(stride) * cx.lanes;
  auto *wideType = llvm::FixedVectorType::get(cx.f32, span);
  std::vector<int> spread, pick;
  for (int e = 0; e < span; ++e)
    spread.push_back(e % stride == 0 ? e / static_cast<int>(stride)
                                     : cx.lanes);
  for (int lane = 0; lane < cx.lanes; ++lane)
    pick.push_back(lane * static_cast<int>(stride));
  llvm::Value *lanes = mask ? mask
                            : llvm::Constant::getAllOnesValue(
                                  llvm::FixedVectorType::get(b.getInt1Ty(),
                                                             cx.lanes));
  llvm::Value *wideMask = b.CreateShuffleVector(
      lanes, llvm::Constant::getNullValue(lanes->getType()), spread);
  llvm::Value *wide = b.CreateMaskedLoad(
      wideType, address, kElementAlign, wideMask,
      llvm::Constant::getNullValue(wideType));
  return b.CreateShuffleVector(wide, pick);
}

llvm::Value *loadOperand(EmitContext &cx, const LoopEnv &env, int tensor,
                         Offsets offsets) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &t = cx.spec.tensors[tensor];
  bool vectorAccess = cx.vectorDim && t.uses(*cx.vectorDim);
  // A vector along a padded axis may read padding in some lanes only.
  if (vectorAccess && env.views[tensor].zeroPadded &&
      paddedAlongVector(cx, tensor))
    return loadPaddedVector(cx, env, tensor, offsets);
  if (env.border && env.views[tensor].zeroPadded &&
      readsPadding(cx, env, tensor, offsets))
    return llvm::Constant::getNullValue(cx.valueType());
  llvm::Value *address = elementPointer(cx, env, tensor, offsets, true);
  if (!vectorAccess) {
    llvm::Value *scalar = b.CreateAlignedLoad(cx.f32, address, kElementAlign);
    return cx.lanes == 1 ? scalar : b.CreateVectorSplat(cx.lanes, scalar);
  }
  // The vector tail: lanes past the dimension read zero and add nothing.
  // Other partial dimensions were clamped in the address.
  return loadVector(cx, address, vectorStride(cx, tensor),
                    laneMask(cx, env, offsets));
}

llvm::Value *loadOutput(EmitContext &cx, const LoopEnv &env, Offsets offsets) {
  llvm::IRBuilder<> &b = cx.builder;
  // One element, read at its clamped address where it lies past the end:
  // such a value is never stored.
  if (cx.lanesSummed)
    return b.CreateAlignedLoad(
        cx.f32, elementPointer(cx, env, 0, offsets, true), kElementAlign);
  llvm::Value *mask = outputMask(cx, env, offsets);
  llvm::Value *address = elementPointer(cx, env, 0, offsets, mask == nullptr);
  if (!mask)
    return b.CreateAlignedLoad(cx.valueType(), address, kElementAlign);
  return toValueType(
      cx, b.CreateMaskedLoad(maskedType(cx), address, kElementAlign, mask,
                             llvm::Constant::getNullValue(maskedType(cx))));
}

void storeOutput(EmitContext &cx, const LoopEnv &env, Offsets offsets,
                 llvm::Value *value) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *mask = outputMask(cx, env, offsets);
  llvm::Value *address = elementPointer(cx, env, 0, offsets, mask == nullptr);
  if (!mask) {
    b.CreateAlignedStore(value, address, kElementAlign);
    return;
  }
  if (cx.lanesSummed) {
    // A store of one element under an i1, as a masked store of one lane.
    auto *oneLane = llvm::FixedVectorType::get(cx.f32, 1);
    b.CreateMaskedStore(b.CreateInsertElement(llvm::PoisonValue::get(oneLane),
                                              value, uint64_t{0}),
                        address, kElementAlign, b.CreateVectorSplat(1, mask));
    return;
  }
  b.CreateMaskedStore(toMaskedType(cx, value), address, kElementAlign, mask);
}

llvm::Value *loadAdded(EmitContext &cx, const LoopEnv &env, int tensor,
                       Offsets offsets) {
  llvm::Value *value = loadOperand(cx, env, tensor, offsets);
  // An output-shaped tensor does not vary along a summed vector: its load
  // is a broadcast, of which one lane is the element.
  if (cx.lanesSummed && value->getType()->isVectorTy())
    return cx.builder.CreateExtractElement(value, uint64_t{0});
  return value;
}

llvm::Value *initialAccumulator(EmitContext &cx, const LoopEnv &env,
                                Offsets offsets, bool withBias) {
  llvm::Value *initial = nullptr;
  // The residual joins at the first pass: read before any pass writes the
  // element, it may be the output buffer itself.
  for (std::optional<int> added :
       {withBias ? cx.spec.biasIndex() : std::nullopt,
        cx.spec.residualIndex()}) {
    if (!added)
      continue;
    llvm::Value *value = loadAdded(cx, env, *added, offsets);
    initial = initial ? cx.builder.CreateFAdd(initial, value) : value;
  }
  return initial ? initial : llvm::Constant::getNullValue(cx.outputType());
}

} // namespace ttile::codegen
