//===- Spec/Spec.h - Computation specs: what to compute ---------*- C++ -*-===//
//
// A Spec describes one tensor computation of the class ttile optimizes
// (thesis 3.1): a rectangular iteration space of named dimensions, each
// parallel or a reduction, and tensors whose axes are affine functions of
// the dimensions. Every spec computes
//
//   Out[o(x)] = act( sum over reduction dims of product over inputs
//                    In_t[f_t(x)]  +  Bias[b(x)]  +  Residual[o(x)] )
//
// with an optional bias and residual, and the activation of the spec's
// Epilogue (Epilogue.h).
//
// Convolution, matrix multiplication and tensor contractions are all Specs;
// the builders live in SpecBuilders.h. A Spec carries its problem sizes: it
// is one concrete problem, which is what code generation needs.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SPEC_SPEC_H
#define TTILE_SPEC_SPEC_H

#include "Spec/Epilogue.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::spec {

/// Tensors of more than 2^40 elements are rejected: 2^40 f32 elements are
/// 4 TiB, far beyond any buffer ttile can be handed, so a bigger count is a
/// mistake in the sizes (often an overflow upstream) rather than a problem.
inline constexpr int kMaxTensorElementsLog2 = 40;

/// Index of a dimension in Spec::dims.
using DimId = int;

enum class DimKind { Parallel, Reduction };

/// Element types. Only f32 exists today; code that depends on the element
/// type asks elementSize() rather than assuming 4 bytes.
enum class ElementType { F32 };
int64_t elementSize(ElementType type);
std::string_view elementTypeName(ElementType type);

struct Dim {
  std::string name;
  DimKind kind = DimKind::Parallel;
  int64_t size = 1;
};

/// constant + sum(coeff * dim). Coefficients are positive, and a dimension
/// appears at most once (thesis 3.1: E[i, i] is not in the class). The
/// constant is negative only on a zero-padded axis.
struct AffineExpr {
  struct Term {
    DimId dim;
    int64_t coeff;
  };
  std::vector<Term> terms;
  int64_t constant = 0;

  static AffineExpr of(DimId dim, int64_t coeff = 1);
  /// Adds coeff * dim; the dimension must not be present already.
  AffineExpr &plus(DimId dim, int64_t coeff = 1);
  int64_t coeffOf(DimId dim) const; ///< 0 when the dimension is absent.
  bool uses(DimId dim) const { return coeffOf(dim) != 0; }
  /// Value at an iteration point (one coordinate per dimension).
  int64_t evaluate(std::span<const int64_t> point) const;
};

/// Output: written. Input: a factor of the products summed. Bias: added
/// once per output element, along the dimensions it uses. Residual: an
/// output-shaped tensor added once per element, before the activation (a
/// network's skip connection); it may share memory with the output.
enum class TensorRole { Output, Input, Bias, Residual };

struct TensorAxis {
  std::string name;  ///< e.g. "h" for the input axis h*stride + r*dilation.
  AffineExpr index;  ///< Which element along this axis an iteration reads.
  int64_t extent = 1; ///< Elements stored along the axis.
  /// Indices outside [0, extent) read zero instead of memory: the implicit
  /// padding of a convolution's input, whose index h*stride + r*dilation -
  /// padTop may then have a negative constant and reach past the extent.
  /// Only input tensors have such axes.
  bool zeroPadded = false;
  /// Elements between consecutive indices along the axis; 0 for every axis
  /// of a dense tensor, which derives them from the extents (row-major).
  /// Explicit strides, all given, describe a caller's strided matrix: a row
  /// stride above its width, or batch items further apart than one item.
  int64_t stride = 0;
};

/// A tensor stored row-major over its axes: the last axis is the
/// contiguous one, so a layout is the order of the axes. Dense unless its
/// axes give explicit strides.
struct Tensor {
  std::string name;
  TensorRole role = TensorRole::Input;
  ElementType type = ElementType::F32;
  std::vector<TensorAxis> axes;
  /// The values are known before the first run and never change (a
  /// network's weights): kernels may read them laid out ahead of time,
  /// tile by tile as their Pack of the tensor reads them (CodeGen/Prepack.h).
  /// Only an input whose every axis is one dimension, with coefficient 1,
  /// no constant and no padding, may be constant.
  bool constant = false;

  /// Elements a buffer of the tensor spans: the product of the extents when
  /// dense, else one past the furthest element.
  int64_t numElements() const;
  /// Stride of each axis, in elements.
  std::vector<int64_t> strides() const;
  bool hasExplicitStrides() const;
  /// Calls visit(coords, offset) for every element of the tensor, the last
  /// axis fastest: its coordinate per axis and its offset in the buffer.
  template <typename Visit> void forEachElement(Visit &&visit) const;
  bool uses(DimId dim) const;
  bool hasZeroPadding() const;
  /// The axis whose index uses `dim`, if any.
  std::optional<int> axisOf(DimId dim) const;
  /// Linear offset, in elements, of the element an iteration point accesses;
  /// none when the point reads the zero padding.
  std::optional<int64_t> offsetAt(std::span<const int64_t> point) const;
};

template <typename Visit> void Tensor::forEachElement(Visit &&visit) const {
  std::vector<int64_t> axisStrides = strides();
  std::vector<int64_t> coords(axes.size(), 0);
  int64_t offset = 0;
  while (true) {
    visit(std::span<const int64_t>(coords), offset);
    size_t axis = axes.size();
    while (axis-- > 0) {
      offset += axisStrides[axis];
      if (++coords[axis] < axes[axis].extent)
        break;
      offset -= axisStrides[axis] * coords[axis];
      coords[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1))
      return;
  }
}

class Spec {
public:
  std::string name;        ///< e.g. "conv2d" or "matmul", for messages.
  std::vector<Dim> dims;
  /// tensors[0] is the output; the inputs follow, then the bias and the
  /// residual, each optional, in that order.
  std::vector<Tensor> tensors;
  Epilogue epilogue = {};

  const Tensor &output() const { return tensors.front(); }
  std::vector<int> inputIndices() const;
  std::optional<int> biasIndex() const;
  std::optional<int> residualIndex() const;
  /// Appends a residual named `name`, a tensor with the output's axes (the
  /// bias, if any, must be there already).
  void addResidual(std::string residualName = "R");

  std::optional<DimId> findDim(std::string_view name) const;
  /// Like findDim, but throws ttile::Error naming the dimension.
  DimId dimId(std::string_view name) const;
  std::optional<int> findTensor(std::string_view name) const;

  bool isReduction(DimId dim) const {
    return dims[dim].kind == DimKind::Reduction;
  }
  /// Number of points of the iteration space.
  int64_t iterationCount() const;
  /// Floating-point operations: one multiply and one add per point and input
  /// beyond the first.
  int64_t flops() const;

  /// Checks the invariants above (affine accesses, extents that contain every
  /// index, a single output); throws ttile::Error naming the broken one.
  void verify() const;

  /// One line, einsum-like: "O[n,h,w,k] += I[n,h+r,w+s,c] * W[r,s,c,k]
  /// {n=1,k=64,...}".
  std::string str() const;
};

} // namespace ttile::spec

#endif // TTILE_SPEC_SPEC_H
