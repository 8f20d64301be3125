//===- Spec/Spec.cpp - Computation specs: what to compute -----------------===//
//
// The accessors of Spec.h and the invariant checks of Spec::verify. verify()
// is the single place that decides whether a Spec is in the class ttile
// optimizes; the builders, the reference executor and code generation rely
// on it instead of re-checking.
//
//===----------------------------------------------------------------------===//

#include "Spec/Spec.h"

#include "ttile/Error.h"

#include <algorithm>
#include <set>

namespace ttile::spec {

namespace {

constexpr int64_t kMaxTensorElements = int64_t{1} << kMaxTensorElementsLog2;

/// a * b, or a ttile::Error saying which quantity overflowed.
int64_t multiplyChecked(int64_t a, int64_t b, const std::string &what) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    throw Error(what + " overflows int64");
  return product;
}

int64_t addChecked(int64_t a, int64_t b, const std::string &what) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    throw Error(what + " overflows int64");
  return sum;
}

/// Prefixes verify()'s messages so that the user sees which spec is broken.
class SpecVerifier {
public:
  explicit SpecVerifier(const Spec &spec) : spec_(spec) {}

  void run() const {
    verifyDims();
    verifyRoles();
    std::set<std::string_view> tensorNames;
    for (const Tensor &tensor : spec_.tensors) {
      if (tensor.name.empty())
        fail("a tensor has an empty name");
      if (!tensorNames.insert(tensor.name).second)
        fail("two tensors are named '" + tensor.name + "'");
      verifyTensor(tensor);
    }
    verifyDimUses();
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw Error("spec '" + spec_.name + "': " + message,
                ErrorCode::InvalidArgument);
  }

  void verifyDims() const {
    std::set<std::string_view> names;
    for (const Dim &dim : spec_.dims) {
      if (dim.name.empty())
        fail("a dimension has an empty name");
      if (!names.insert(dim.name).second)
        fail("two dimensions are named '" + dim.name + "'");
      if (dim.size < 1)
        fail("dimension '" + dim.name + "' has size " +
             std::to_string(dim.size) + "; sizes must be >= 1");
    }
  }

  void verifyRoles() const {
    if (spec_.tensors.empty() ||
        spec_.tensors.front().role != TensorRole::Output)
      fail("tensors[0] must be the output");
    // The roles come in the order Output, Input..., Bias?, Residual?.
    auto rank = [](TensorRole role) { return static_cast<int>(role); };
    for (size_t i = 1; i < spec_.tensors.size(); ++i) {
      const Tensor &tensor = spec_.tensors[i];
      const Tensor &previous = spec_.tensors[i - 1];
      if (tensor.role == TensorRole::Output)
        fail("tensor '" + tensor.name +
             "' is a second output; a spec has exactly one");
      if (rank(tensor.role) < rank(previous.role) ||
          (tensor.role == previous.role && tensor.role != TensorRole::Input))
        fail("tensor '" + tensor.name + "' follows '" + previous.name +
             "'; the inputs come first, then at most one bias, then at "
             "most one residual");
    }
    if (spec_.inputIndices().empty())
      fail("the spec has no input tensor");
    if (std::optional<int> residual = spec_.residualIndex())
      verifyResidual(spec_.tensors[*residual]);
  }

  /// The residual is added element by element: it must be indexed exactly
  /// as the output is.
  void verifyResidual(const Tensor &residual) const {
    const Tensor &output = spec_.output();
    bool sameAxes = residual.axes.size() == output.axes.size();
    for (size_t a = 0; sameAxes && a < output.axes.size(); ++a) {
      const TensorAxis &mine = residual.axes[a], &theirs = output.axes[a];
      sameAxes = mine.extent == theirs.extent && mine.stride == theirs.stride &&
                 !mine.zeroPadded &&
                 mine.index.constant == theirs.index.constant &&
                 std::equal(mine.index.terms.begin(), mine.index.terms.end(),
                            theirs.index.terms.begin(),
                            theirs.index.terms.end(),
                            [](const AffineExpr::Term &a,
                               const AffineExpr::Term &b) {
                              return a.dim == b.dim && a.coeff == b.coeff;
                            });
    }
    if (!sameAxes)
      fail("the residual '" + residual.name + "' must have the axes of the "
           "output '" + output.name + "'");
  }

  void verifyTensor(const Tensor &tensor) const {
    if (tensor.constant && tensor.role != TensorRole::Input)
      fail("tensor '" + tensor.name + "' is constant, but only inputs may be");
    std::set<std::string_view> axisNames;
    std::set<DimId> dimsUsed;
    for (const TensorAxis &axis : tensor.axes) {
      if (axis.name.empty())
        fail("tensor '" + tensor.name + "' has an axis with an empty name");
      if (!axisNames.insert(axis.name).second)
        fail("tensor '" + tensor.name + "' has two axes named '" + axis.name +
             "'");
      std::string where =
          "tensor '" + tensor.name + "' axis '" + axis.name + "'";
      if (axis.zeroPadded && tensor.role != TensorRole::Input)
        fail(where + " is zero-padded, but only inputs may be");
      if (tensor.constant &&
          (axis.zeroPadded || axis.index.terms.size() != 1 ||
           axis.index.terms[0].coeff != 1 || axis.index.constant != 0))
        fail(where + " of a constant tensor must be exactly one dimension, "
                     "with coefficient 1 and no padding");
      verifyIndex(axis, where);
      // Each dimension indexes at most one axis of a tensor (E[i, i] is not
      // in the class): Tensor::axisOf and the tiling rely on it.
      for (const AffineExpr::Term &term : axis.index.terms)
        if (!dimsUsed.insert(term.dim).second)
          fail("dimension '" + spec_.dims[term.dim].name +
               "' indexes two axes of tensor '" + tensor.name + "'");
    }
    int64_t elements = 1;
    for (const TensorAxis &axis : tensor.axes) {
      elements =
          multiplyChecked(elements, axis.extent,
                          "element count of tensor '" + tensor.name + "'");
      if (elements > kMaxTensorElements)
        fail("tensor '" + tensor.name +
             "' has more than 2^40 elements; check the sizes");
    }
    if (tensor.hasExplicitStrides())
      verifyStrides(tensor);
  }

  /// Explicit strides are given for every axis, and a buffer spans at most
  /// 2^40 elements. The output's elements must be distinct: each stride
  /// steps past everything the axes with smaller strides reach.
  void verifyStrides(const Tensor &tensor) const {
    for (const TensorAxis &axis : tensor.axes)
      if (axis.stride < 1)
        fail("tensor '" + tensor.name + "' axis '" + axis.name +
             "' has stride " + std::to_string(axis.stride) +
             "; explicit strides must be >= 1 on every axis");
    if (tensor.numElements() > kMaxTensorElements)
      fail("tensor '" + tensor.name +
           "' spans more than 2^40 elements; check the strides");
    if (tensor.role != TensorRole::Output && tensor.role != TensorRole::Residual)
      return;
    std::vector<const TensorAxis *> byStride;
    for (const TensorAxis &axis : tensor.axes)
      byStride.push_back(&axis);
    std::sort(byStride.begin(), byStride.end(),
              [](const TensorAxis *a, const TensorAxis *b) {
                return a->stride < b->stride;
              });
    int64_t reached = 0; // The furthest offset of the axes so far.
    for (const TensorAxis *axis : byStride) {
      if (axis->extent > 1 && axis->stride <= reached)
        fail("tensor '" + tensor.name + "' axis '" + axis->name +
             "' has stride " + std::to_string(axis->stride) +
             ", which makes two of its elements share memory");
      reached += (axis->extent - 1) * axis->stride;
    }
  }

  void verifyIndex(const TensorAxis &axis, const std::string &where) const {
    const AffineExpr &index = axis.index;
    if (index.constant < 0 && !axis.zeroPadded)
      fail(where + " has a negative constant " +
           std::to_string(index.constant));
    int64_t maxIndex = index.constant;
    std::set<DimId> dims;
    for (const AffineExpr::Term &term : index.terms) {
      if (term.dim < 0 || term.dim >= static_cast<DimId>(spec_.dims.size()))
        fail(where + " uses dimension id " + std::to_string(term.dim) +
             ", which does not exist");
      const Dim &dim = spec_.dims[term.dim];
      if (term.coeff < 1)
        fail(where + " has coefficient " + std::to_string(term.coeff) +
             " on dimension '" + dim.name + "'; coefficients must be >= 1");
      if (!dims.insert(term.dim).second)
        fail(where + " uses dimension '" + dim.name + "' twice");
      maxIndex = addChecked(
          maxIndex,
          multiplyChecked(term.coeff, dim.size - 1, "the index of " + where),
          "the index of " + where);
    }
    if (axis.extent <= maxIndex && !axis.zeroPadded)
      fail(where + " has extent " + std::to_string(axis.extent) +
           " but its index reaches " + std::to_string(maxIndex));
  }

  /// Each output element is a sum over the reduction dimensions, written at
  /// a parallel point: that is well defined only when the output uses every
  /// parallel dimension and no reduction, when the bias, added once per
  /// element, uses no reduction either, and when every reduction is summed
  /// over some input.
  void verifyDimUses() const {
    // Code generation keeps one accumulator per output element of a tile;
    // an axis like O[i+j] would make several points write one element.
    // Its extent is the dimension's size, so that every element is written.
    for (const TensorAxis &axis : spec_.output().axes)
      if (axis.index.terms.size() != 1 || axis.index.terms[0].coeff != 1 ||
          axis.index.constant != 0 ||
          axis.extent != spec_.dims[axis.index.terms[0].dim].size)
        fail("output axis '" + axis.name + "' of '" + spec_.output().name +
             "' must be exactly one dimension, with coefficient 1 and its "
             "size as extent");
    for (DimId dim = 0; dim < static_cast<DimId>(spec_.dims.size()); ++dim) {
      const std::string &name = spec_.dims[dim].name;
      if (spec_.isReduction(dim)) {
        if (spec_.output().uses(dim))
          fail("the output '" + spec_.output().name +
               "' uses reduction dimension '" + name + "'");
        if (auto bias = spec_.biasIndex();
            bias && spec_.tensors[*bias].uses(dim))
          fail("the bias '" + spec_.tensors[*bias].name +
               "' uses reduction dimension '" + name + "'");
        std::vector<int> inputs = spec_.inputIndices();
        if (std::none_of(inputs.begin(), inputs.end(), [&](int input) {
              return spec_.tensors[input].uses(dim);
            }))
          fail("reduction dimension '" + name + "' is used by no input");
      } else if (!spec_.output().uses(dim)) {
        fail("parallel dimension '" + name + "' does not index the output '" +
             spec_.output().name + "'");
      }
    }
  }

  const Spec &spec_;
};

/// "2*h+r+3": the coefficient only when it is not 1, the constant last.
std::string indexString(const Spec &spec, const AffineExpr &index) {
  std::string text;
  for (const AffineExpr::Term &term : index.terms) {
    if (!text.empty())
      text += '+';
    if (term.coeff != 1)
      text += std::to_string(term.coeff) + '*';
    bool known =
        term.dim >= 0 && term.dim < static_cast<DimId>(spec.dims.size());
    // str() also describes specs that fail verify(), in error messages.
    text += known ? spec.dims[term.dim].name : "?" + std::to_string(term.dim);
  }
  if (text.empty())
    return std::to_string(index.constant);
  if (index.constant > 0)
    text += '+';
  if (index.constant != 0)
    text += std::to_string(index.constant);
  return text;
}

std::string accessString(const Spec &spec, const Tensor &tensor) {
  std::string text = (tensor.constant ? "const " : "") + tensor.name + '[';
  for (size_t i = 0; i < tensor.axes.size(); ++i) {
    if (i != 0)
      text += ',';
    std::string index = indexString(spec, tensor.axes[i].index);
    text += tensor.axes[i].zeroPadded ? "pad(" + index + ")" : index;
  }
  return text + ']';
}

} // namespace

int64_t elementSize(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return 4;
  }
  throw Error("unknown element type", ErrorCode::Internal);
}

std::string_view elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  }
  throw Error("unknown element type", ErrorCode::Internal);
}

AffineExpr AffineExpr::of(DimId dim, int64_t coeff) {
  AffineExpr expr;
  expr.plus(dim, coeff);
  return expr;
}

AffineExpr &AffineExpr::plus(DimId dim, int64_t coeff) {
  if (uses(dim))
    throw Error("AffineExpr::plus: dimension " + std::to_string(dim) +
                    " is already present",
                ErrorCode::Internal);
  terms.push_back({dim, coeff});
  return *this;
}

int64_t AffineExpr::coeffOf(DimId dim) const {
  for (const Term &term : terms)
    if (term.dim == dim)
      return term.coeff;
  return 0;
}

int64_t AffineExpr::evaluate(std::span<const int64_t> point) const {
  int64_t value = constant;
  for (const Term &term : terms)
    value += term.coeff * point[term.dim];
  return value;
}

int64_t Tensor::numElements() const {
  const std::string what = "element count of tensor '" + name + "'";
  int64_t elements = 1;
  if (!hasExplicitStrides()) {
    for (const TensorAxis &axis : axes)
      elements = multiplyChecked(elements, axis.extent, what);
    return elements;
  }
  for (const TensorAxis &axis : axes)
    elements = addChecked(
        elements, multiplyChecked(axis.extent - 1, axis.stride, what), what);
  return elements;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> result(axes.size());
  int64_t stride = 1;
  for (size_t i = axes.size(); i-- > 0;) {
    result[i] = axes[i].stride ? axes[i].stride : stride;
    stride *= axes[i].extent;
  }
  return result;
}

bool Tensor::hasExplicitStrides() const {
  return std::any_of(axes.begin(), axes.end(),
                     [](const TensorAxis &axis) { return axis.stride != 0; });
}

bool Tensor::uses(DimId dim) const { return axisOf(dim).has_value(); }

std::optional<int> Tensor::axisOf(DimId dim) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].index.uses(dim))
      return static_cast<int>(i);
  return std::nullopt;
}

bool Tensor::hasZeroPadding() const {
  return std::any_of(axes.begin(), axes.end(),
                     [](const TensorAxis &axis) { return axis.zeroPadded; });
}

std::optional<int64_t> Tensor::offsetAt(std::span<const int64_t> point) const {
  std::vector<int64_t> axisStrides = strides();
  int64_t offset = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t index = axes[i].index.evaluate(point);
    if (index < 0 || index >= axes[i].extent)
      return std::nullopt; // verify() allows that on zero-padded axes only.
    offset += axisStrides[i] * index;
  }
  return offset;
}

std::vector<int> Spec::inputIndices() const {
  std::vector<int> indices;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].role == TensorRole::Input)
      indices.push_back(static_cast<int>(i));
  return indices;
}

std::optional<int> Spec::biasIndex() const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].role == TensorRole::Bias)
      return static_cast<int>(i);
  return std::nullopt;
}

std::optional<int> Spec::residualIndex() const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].role == TensorRole::Residual)
      return static_cast<int>(i);
  return std::nullopt;
}

void Spec::addResidual(std::string residualName) {
  Tensor residual = output();
  residual.name = std::move(residualName);
  residual.role = TensorRole::Residual;
  residual.constant = false;
  tensors.push_back(std::move(residual));
}

std::optional<DimId> Spec::findDim(std::string_view dimName) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == dimName)
      return static_cast<DimId>(i);
  return std::nullopt;
}

DimId Spec::dimId(std::string_view dimName) const {
  if (std::optional<DimId> dim = findDim(dimName))
    return *dim;
  throw Error("spec '" + name + "' has no dimension '" + std::string(dimName) +
              "'");
}

std::optional<int> Spec::findTensor(std::string_view tensorName) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == tensorName)
      return static_cast<int>(i);
  return std::nullopt;
}

int64_t Spec::iterationCount() const {
  int64_t count = 1;
  for (const Dim &dim : dims)
    count = multiplyChecked(count, dim.size,
                            "iteration count of spec '" + name + "'");
  return count;
}

int64_t Spec::flops() const {
  // Per point, an input beyond the first costs a multiply, and the sum costs
  // an add: as many operations as there are inputs.
  auto inputs = static_cast<int64_t>(inputIndices().size());
  return multiplyChecked(iterationCount(), inputs,
                         "flop count of spec '" + name + "'");
}

void Spec::verify() const { SpecVerifier(*this).run(); }

std::string Spec::str() const {
  std::string text;
  std::string product;
  for (const Tensor &tensor : tensors) {
    switch (tensor.role) {
    case TensorRole::Output:
      text = accessString(*this, tensor) + " += ";
      break;
    case TensorRole::Input:
      if (!product.empty())
        product += " * ";
      product += accessString(*this, tensor);
      break;
    case TensorRole::Bias:
    case TensorRole::Residual:
      break; // Added after the products, below.
    }
  }
  text += product;
  for (std::optional<int> added : {biasIndex(), residualIndex()})
    if (added)
      text += " + " + accessString(*this, tensors[*added]);
  if (epilogue.activation != Activation::None)
    text += ", " + epilogue.str();
  text += " {";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0)
      text += ',';
    text += dims[i].name + '=' + std::to_string(dims[i].size);
  }
  return text + '}';
}

} // namespace ttile::spec
