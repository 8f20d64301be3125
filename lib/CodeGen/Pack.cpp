//===- CodeGen/Pack.cpp - Copy a tile of a tensor to scratch --------------===//

#include "CodeGen/Pack.h"

#include "CodeGen/Prefetch.h"
#include "CodeGen/ZeroPadding.h"

#include <functional>

namespace ttile::codegen {

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

namespace {

bool axisMayOverrun(const EmitContext &cx, const spec::TensorAxis &axis) {
  for (const spec::AffineExpr::Term &term : axis.index.terms)
    if (cx.partial[term.dim])
      return true;
  return false;
}

/// The offset, in elements, of the element at `index` (per axis) in the
/// view's buffer.
llvm::Value *elementOffset(EmitContext &cx, const TensorView &source,
                           std::span<llvm::Value *const> index) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *offset = cx.constant(0);
  for (size_t a = 0; a < index.size(); ++a)
    offset = b.CreateAdd(offset,
                         b.CreateMul(index[a], cx.constant(source.strides[a])));
  return offset;
}

/// The source element at `index` (per axis): through the padding check
/// when the source is a zero-padded view, else directly.
llvm::Value *sourcePointer(EmitContext &cx, const TensorView &source,
                           int tensor, std::span<llvm::Value *const> index) {
  if (source.zeroPadded)
    return zeroPaddedElementPointer(cx, source, tensor, index);
  return cx.builder.CreateInBoundsGEP(cx.f32, source.base,
                                      elementOffset(cx, source, index));
}

/// Transposes the square of `rows` (as many vectors as each has lanes, a
/// power of two) in registers: log2(lanes) rounds, each interleaving the
/// first half of the rows with the second (row i's lanes with row i +
/// lanes/2's), a two-vector permutation each (vpermt2ps on AVX-512).
void transposeInRegisters(llvm::IRBuilder<> &b,
                          std::vector<llvm::Value *> &rows) {
  const int lanes = static_cast<int>(rows.size());
  const int half = lanes / 2;
  std::vector<int> low, high;
  for (int lane = 0; lane < half; ++lane) {
    low.insert(low.end(), {lane, lanes + lane});
    high.insert(high.end(), {half + lane, lanes + half + lane});
  }
  for (int round = 1; round < lanes; round *= 2) {
    std::vector<llvm::Value *> next(lanes);
    for (int i = 0; i < half; ++i) {
      next[2 * i] = b.CreateShuffleVector(rows[i], rows[i + half], low);
      next[2 * i + 1] = b.CreateShuffleVector(rows[i], rows[i + half], high);
    }
    rows = std::move(next);
  }
}

} // namespace

void emitTileCopy(EmitContext &cx, int tensorIndex,
                  std::span<const int> axisOrder, const PackBuffer &buffer,
                  const TensorView &source,
                  std::span<llvm::Value *const> origin, llvm::Value *packed) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &tensor = cx.spec.tensors[tensorIndex];

  // One loop per axis in the packed order. The innermost axis is contiguous
  // in the buffer; where it is in the source too, it is copied a vector at a
  // time (masked at the tile's and the tensor's ends, and for a zero-padded
  // source, where it reads the padding), since scalar copies between
  // pointers that may alias are left scalar by the optimizer.
  const int innermost = axisOrder.back();
  const bool vectorCopy =
      cx.lanes > 1 && source.strides[innermost] == 1 &&
      buffer.strides[innermost] == 1 &&
      (!source.zeroPadded ||
       innermost == static_cast<int>(tensor.axes.size()) - 1);
  // Where the buffer's contiguous axis is strided in the source, the copy
  // transposes. Where the tile is whole squares of lanes x lanes elements
  // along that axis and the source's contiguous one, it loads them as
  // vectors along the source's axis, transposes them in registers and
  // stores them as vectors along the buffer's. An element at a time, such
  // a copy was most of the time of the contractions whose vectorized
  // operand it lays out (TCCG cases 1-8, docs/benchmarks/contractions.md);
  // squares cut by the tile's or the tensor's end, masked, were slower than
  // that on some (in-register transposes of mostly empty squares), so those
  // tiles keep the copy by elements.
  int sourceContiguous = -1;
  for (size_t a = 0; a < tensor.axes.size(); ++a)
    if (source.strides[a] == 1 && tensor.axes[a].extent > 1)
      sourceContiguous = static_cast<int>(a);
  auto wholeSquares = [&](int axis) {
    return buffer.extents[axis] % cx.lanes == 0 &&
           !axisMayOverrun(cx, tensor.axes[axis]);
  };
  const bool transposeCopy =
      !vectorCopy && cx.lanes > 1 && !source.zeroPadded &&
      buffer.strides[innermost] == 1 && sourceContiguous >= 0 &&
      sourceContiguous != innermost && wholeSquares(innermost) &&
      wholeSquares(sourceContiguous);
  std::vector<llvm::Value *> position(tensor.axes.size());

  // The source index along `a` at `position`; where the copy is by vectors,
  // the innermost axis is masked rather than clamped.
  auto sourceIndexOf = [&](size_t a) {
    llvm::Value *index = b.CreateAdd(origin[a], position[a]);
    // A padded axis reads zeros past its end instead (ZeroPadding.h).
    if (axisMayOverrun(cx, tensor.axes[a]) && !source.zeroPadded &&
        !(vectorCopy && static_cast<int>(a) == innermost))
      index = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, index,
                                      cx.constant(tensor.axes[a].extent - 1));
    if (source.origin[a])
      index = b.CreateSub(index, source.origin[a]);
    return index;
  };
  auto packedPointer = [&] {
    llvm::Value *offset = cx.constant(0);
    for (size_t a = 0; a < tensor.axes.size(); ++a)
      offset = b.CreateAdd(
          offset, b.CreateMul(position[a], cx.constant(buffer.strides[a])));
    return b.CreateInBoundsGEP(cx.f32, packed, offset);
  };
  auto sourceIndices = [&] {
    std::vector<llvm::Value *> index;
    for (size_t a = 0; a < tensor.axes.size(); ++a)
      index.push_back(sourceIndexOf(a));
    return index;
  };

  auto copyElement = [&] {
    llvm::Value *value = b.CreateAlignedLoad(
        cx.f32, sourcePointer(cx, source, tensorIndex, sourceIndices()),
        kElementAlign);
    b.CreateAlignedStore(value, packedPointer(), kElementAlign);
  };

  auto lanesBelow = [&](llvm::Value *limit) {
    return b.CreateICmpSLT(cx.laneIndices(),
                           b.CreateVectorSplat(cx.lanes, limit));
  };

  // A zero-padded source (its own buffer, whose contiguous axis is the
  // last): the lanes inside the tensor are loaded, the others are zeros,
  // and none is addressed: a masked load reads only its lanes. The planar
  // family's image (NCHW) is padded along its contiguous axis; an element
  // at a time, its copy took as long as the convolution.
  auto copyPaddedVector = [&](llvm::Value *inTile) {
    auto *vectorType = llvm::FixedVectorType::get(cx.f32, cx.lanes);
    std::vector<llvm::Value *> index = sourceIndices();
    llvm::Value *read = b.CreateAnd(
        lanesInsidePadding(cx, tensorIndex, index, /*stride=*/1),
        lanesBelow(inTile));
    llvm::Value *value = b.CreateMaskedLoad(
        vectorType,
        b.CreateGEP(cx.f32, source.base, elementOffset(cx, source, index)),
        kElementAlign, read, llvm::Constant::getNullValue(vectorType));
    b.CreateMaskedStore(value, packedPointer(), kElementAlign,
                        lanesBelow(inTile));
  };

  // Lanes past the tile are not stored (they belong to the next row of the
  // buffer); lanes past the tensor's end, in a partial tile, store zeros.
  auto copyVector = [&] {
    if (source.zeroPadded)
      return copyPaddedVector(b.CreateSub(
          cx.constant(buffer.extents[innermost]), position[innermost]));
    auto *vectorType = llvm::FixedVectorType::get(cx.f32, cx.lanes);
    llvm::Value *from = sourcePointer(cx, source, tensorIndex, sourceIndices());
    if (buffer.extents[innermost] % cx.lanes == 0 &&
        !axisMayOverrun(cx, tensor.axes[innermost])) {
      b.CreateAlignedStore(
          b.CreateAlignedLoad(vectorType, from, kElementAlign), packedPointer(),
          kElementAlign);
      return;
    }
    llvm::Value *inTile = b.CreateSub(
        cx.constant(buffer.extents[innermost]), position[innermost]);
    llvm::Value *inTensor = inTile;
    if (axisMayOverrun(cx, tensor.axes[innermost]))
      inTensor = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::smin, inTile,
          b.CreateSub(cx.constant(tensor.axes[innermost].extent),
                      b.CreateAdd(origin[innermost], position[innermost])));
    llvm::Value *value = b.CreateMaskedLoad(
        vectorType, from, kElementAlign, lanesBelow(inTensor),
        llvm::Constant::getNullValue(vectorType));
    b.CreateMaskedStore(value, packedPointer(), kElementAlign,
                        lanesBelow(inTile));
  };

  // The square at `position`: its rows along the buffer's contiguous axis
  // (`innermost`), its columns along the source's.
  auto copyTransposedSquare = [&] {
    auto *vectorType = llvm::FixedVectorType::get(cx.f32, cx.lanes);
    llvm::Value *firstRow = position[innermost];
    llvm::Value *firstColumn = position[sourceContiguous];
    std::vector<llvm::Value *> square;
    for (int row = 0; row < cx.lanes; ++row) {
      position[innermost] = b.CreateAdd(firstRow, cx.constant(row));
      square.push_back(b.CreateAlignedLoad(
          vectorType, sourcePointer(cx, source, tensorIndex, sourceIndices()),
          kElementAlign));
    }
    transposeInRegisters(b, square);
    position[innermost] = firstRow;
    for (int column = 0; column < cx.lanes; ++column) {
      position[sourceContiguous] =
          b.CreateAdd(firstColumn, cx.constant(column));
      b.CreateAlignedStore(square[column], packedPointer(), kElementAlign);
    }
    position[sourceContiguous] = firstColumn;
  };

  std::function<void(size_t)> copyAxis = [&](size_t level) {
    if (level == axisOrder.size())
      return copyElement();
    int axis = axisOrder[level];
    if (transposeCopy && (axis == innermost || axis == sourceContiguous)) {
      // Squares: the two axes step by a vector's lanes.
      cx.countedLoop("pack." + tensor.axes[axis].name,
                     buffer.extents[axis] / cx.lanes, {},
                     [&](llvm::Value *iv, std::vector<llvm::Value *>) {
                       position[axis] = b.CreateMul(iv, cx.constant(cx.lanes));
                       if (axis == innermost)
                         copyTransposedSquare();
                       else
                         copyAxis(level + 1);
                       return std::vector<llvm::Value *>{};
                     });
      return;
    }
    bool vectors = vectorCopy && axis == innermost;
    int64_t extent = buffer.extents[axis];
    int64_t trips = vectors ? (extent + cx.lanes - 1) / cx.lanes : extent;
    cx.countedLoop("pack." + tensor.axes[axis].name, trips, {},
                   [&](llvm::Value *iv, std::vector<llvm::Value *>) {
                     if (!vectors) {
                       position[axis] = iv;
                       copyAxis(level + 1);
                     } else {
                       position[axis] = b.CreateMul(iv, cx.constant(cx.lanes));
                       copyVector();
                     }
                     return std::vector<llvm::Value *>{};
                   });
  };
  copyAxis(0);
}

LoopEnv emitPack(EmitContext &cx, const TileNode &node,
                 const PackBuffer &buffer, const LoopEnv &env) {
  const spec::Tensor &tensor = cx.spec.tensors[node.tensor];
  std::vector<llvm::Value *> origin = tileOrigin(cx, env, tensor);
  llvm::Value *region = buffer.perWorker ? env.workerScratch : env.sharedScratch;
  llvm::Value *packed = cx.builder.CreateInBoundsGEP(
      cx.builder.getInt8Ty(), region, cx.constant(buffer.offset),
      "pack." + tensor.name);
  emitTileCopy(cx, node.tensor, node.axisOrder, buffer, env.views[node.tensor],
               origin, packed);

  LoopEnv inner = env;
  if (std::optional<PrefetchStream> stream = startSourcePrefetch(
          cx, node, buffer, env.views[node.tensor], origin, env))
    inner.prefetches.push_back(std::move(*stream));
  inner.views[node.tensor] = TensorView{packed, buffer.strides, origin};
  inner.views[node.tensor].scratch = true;
  return inner;
}

} // namespace ttile::codegen
