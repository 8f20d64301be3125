//===- Spec/Reference.cpp - The naive executor: the oracle ----------------===//
//
// Every output element is computed on its own: a sum over the reduction box
// of products of input elements, accumulated in double. Offsets into each
// tensor are linear in the iteration point, so walking the box only adds
// precomputed steps; that keeps the oracle simple and still fast enough to
// run full-size convolutions in the tests.
//
//===----------------------------------------------------------------------===//

#include "Spec/Reference.h"

#include "ttile/Error.h"

#include <algorithm>
#include <cmath>

namespace ttile::spec {

namespace {

/// A tensor's element offset as a function of the iteration point:
/// base + sum(steps[d] * point[d]).
struct LinearAccess {
  int64_t base = 0;
  std::vector<int64_t> steps; ///< Per dimension, in elements.

  LinearAccess(const Spec &spec, const Tensor &tensor)
      : steps(spec.dims.size(), 0) {
    std::vector<int64_t> strides = tensor.strides();
    for (size_t axis = 0; axis < tensor.axes.size(); ++axis) {
      const AffineExpr &index = tensor.axes[axis].index;
      base += strides[axis] * index.constant;
      for (const AffineExpr::Term &term : index.terms)
        steps[term.dim] += strides[axis] * term.coeff;
    }
  }

  int64_t at(std::span<const int64_t> point) const {
    int64_t offset = base;
    for (size_t dim = 0; dim < steps.size(); ++dim)
      offset += steps[dim] * point[dim];
    return offset;
  }
};

/// Moves `point` to the next point of the box spanned by `dims` (the last
/// one fastest), calling move(dim, delta) for every coordinate it changes.
/// Returns false, with the coordinates back at 0, after the last point.
template <class Move>
bool advance(const Spec &spec, std::span<const DimId> dims,
             std::span<int64_t> point, Move &&move) {
  for (size_t i = dims.size(); i-- > 0;) {
    DimId dim = dims[i];
    if (++point[dim] < spec.dims[dim].size) {
      move(dim, 1);
      return true;
    }
    int64_t last = point[dim] - 1;
    point[dim] = 0;
    move(dim, -last);
  }
  return false;
}

/// Verifies `spec` before a member initializer relies on it.
const Spec &verified(const Spec &spec) {
  spec.verify();
  return spec;
}

/// Computes output elements of one Spec from one set of buffers.
class Evaluator {
public:
  Evaluator(const Spec &spec, std::span<const float *const> buffers)
      : spec_(verified(spec)), output_(spec, spec.output()) {
    if (buffers.size() != spec.tensors.size())
      throw Error("spec '" + spec.name + "' has " +
                  std::to_string(spec.tensors.size()) + " tensors but " +
                  std::to_string(buffers.size()) + " buffers were given");
    auto buffer = [&](int tensor) {
      if (!buffers[tensor])
        throw Error("the buffer of tensor '" + spec.tensors[tensor].name +
                    "' is null");
      return buffers[tensor];
    };
    for (int input : spec.inputIndices()) {
      for (const TensorAxis &axis : spec.tensors[input].axes)
        if (axis.zeroPadded)
          paddedAxes_.push_back({&axis.index, axis.extent});
      inputs_.push_back(buffer(input));
      inputAccesses_.emplace_back(spec, spec.tensors[input]);
    }
    if (std::optional<int> bias = spec.biasIndex()) {
      bias_ = buffer(*bias);
      biasAccess_.emplace(spec, spec.tensors[*bias]);
    }
    if (std::optional<int> residual = spec.residualIndex())
      residual_ = buffer(*residual); // Indexed as the output.
    for (DimId dim = 0; dim < static_cast<DimId>(spec.dims.size()); ++dim)
      (spec.isReduction(dim) ? reductionDims_ : parallelDims_).push_back(dim);
    // The longest reduction that indexes no padded axis runs innermost, as a
    // plain strided loop; the other reductions go through the slower generic
    // odometer, which checks for the padding.
    auto indexesPadding = [&](DimId dim) {
      return std::any_of(
          paddedAxes_.begin(), paddedAxes_.end(),
          [&](const PaddedAxis &axis) { return axis.index->uses(dim); });
    };
    auto longest = reductionDims_.end();
    for (auto it = reductionDims_.begin(); it != reductionDims_.end(); ++it)
      if (!indexesPadding(*it) &&
          (longest == reductionDims_.end() ||
           spec.dims[*it].size > spec.dims[*longest].size))
        longest = it;
    if (longest != reductionDims_.end()) {
      innerSize_ = spec.dims[*longest].size;
      for (const LinearAccess &access : inputAccesses_)
        innerSteps_.push_back(access.steps[*longest]);
      reductionDims_.erase(longest);
    } else {
      innerSteps_.assign(inputs_.size(), 0);
    }
    reductionPoint_.assign(spec.dims.size(), 0);
    offsets_.resize(inputs_.size());
    rows_.resize(inputs_.size());
  }

  const LinearAccess &output() const { return output_; }

  /// Calls visit(point) at every point of the parallel box; the reduction
  /// coordinates of `point` stay 0.
  template <class Visit> void forEachOutputPoint(Visit &&visit) const {
    std::vector<int64_t> point(spec_.dims.size(), 0);
    do
      visit(std::span<const int64_t>(point));
    while (advance(spec_, parallelDims_, point, [](DimId, int64_t) {}));
  }

  /// The output element at `point`, whose reduction coordinates must be 0.
  template <bool WithMagnitude>
  ReferencePoint evaluate(std::span<const int64_t> point) {
    for (size_t input = 0; input < inputs_.size(); ++input)
      offsets_[input] = inputAccesses_[input].at(point);
    double sum = 0, magnitude = 0;
    auto moveOffsets = [&](DimId dim, int64_t delta) {
      for (size_t input = 0; input < inputs_.size(); ++input)
        offsets_[input] += inputAccesses_[input].steps[dim] * delta;
    };
    // The innermost loop runs once per iteration point: it uses raw pointers
    // so that unoptimized builds do not pay a call per vector access.
    const size_t inputCount = inputs_.size();
    const int64_t *innerSteps = innerSteps_.data();
    const float **rows = rows_.data();
    do {
      if (readsPadding(point))
        continue; // Every product of the inner loop reads a zero.
      for (size_t input = 0; input < inputCount; ++input)
        rows[input] = inputs_[input] + offsets_[input];
      for (int64_t i = 0; i < innerSize_; ++i) {
        double product = 1;
        for (size_t input = 0; input < inputCount; ++input)
          product *= rows[input][i * innerSteps[input]];
        sum += product;
        if constexpr (WithMagnitude)
          magnitude += std::fabs(product);
      }
    } while (advance(spec_, reductionDims_, reductionPoint_, moveOffsets));

    if (bias_) {
      double bias = bias_[biasAccess_->at(point)];
      sum += bias;
      magnitude += std::fabs(bias);
    }
    if (residual_) {
      double residual = residual_[output_.at(point)];
      sum += residual;
      magnitude += std::fabs(residual);
    }
    const Epilogue &epilogue = spec_.epilogue;
    if (epilogue.activation == Activation::None)
      return {sum, magnitude};
    // The rounding error of the sum reaches the result amplified by at
    // most the activation's slope; the activation's own error is relative
    // to its result.
    double activated = epilogue.apply(sum);
    return {activated,
            epilogue.lipschitzBound() * magnitude + std::fabs(activated)};
  }

private:
  /// An input axis whose indices outside [0, extent) read zero.
  struct PaddedAxis {
    const AffineExpr *index;
    int64_t extent;
  };

  /// Whether some input index at the parallel `point` and the current
  /// reduction point falls in the zero padding. The inner loop's reduction
  /// never indexes a padded axis, so the answer holds for the whole loop.
  bool readsPadding(std::span<const int64_t> point) const {
    for (const PaddedAxis &axis : paddedAxes_) {
      int64_t index = axis.index->constant;
      for (const AffineExpr::Term &term : axis.index->terms)
        index += term.coeff * (point[term.dim] + reductionPoint_[term.dim]);
      if (index < 0 || index >= axis.extent)
        return true;
    }
    return false;
  }

  const Spec &spec_;
  LinearAccess output_;
  std::vector<const float *> inputs_;
  std::vector<LinearAccess> inputAccesses_;
  const float *bias_ = nullptr;
  std::optional<LinearAccess> biasAccess_;
  const float *residual_ = nullptr;
  std::vector<DimId> parallelDims_;
  /// The reductions walked by the odometer, all but the innermost one.
  std::vector<DimId> reductionDims_;
  std::vector<PaddedAxis> paddedAxes_; ///< Of every input.
  int64_t innerSize_ = 1;
  std::vector<int64_t> innerSteps_; ///< Per input.
  // Scratch state of evaluate(), kept to avoid allocating per element.
  std::vector<int64_t> reductionPoint_;
  std::vector<int64_t> offsets_;
  std::vector<const float *> rows_; ///< Per input, where the inner loop starts.
};

} // namespace

void runReference(const Spec &spec, std::span<float *const> buffers) {
  std::vector<const float *> readOnly(buffers.begin(), buffers.end());
  Evaluator evaluator(spec, readOnly);
  float *output = buffers.front();
  if (!output)
    throw Error("the buffer of the output '" + spec.output().name +
                "' is null");
  // An output extent may exceed what the iteration space reaches; the
  // elements no point reaches are 0, as referenceAt reports them.
  // Strided rows leave gaps between them, which are not the output's.
  spec.output().forEachElement(
      [&](std::span<const int64_t>, int64_t offset) { output[offset] = 0; });
  evaluator.forEachOutputPoint([&](std::span<const int64_t> point) {
    output[evaluator.output().at(point)] =
        static_cast<float>(evaluator.evaluate<false>(point).value);
  });
}

std::vector<ReferencePoint>
referencePoints(const Spec &spec, std::span<const float *const> buffers) {
  Evaluator evaluator(spec, buffers);
  std::vector<ReferencePoint> points(spec.output().numElements());
  evaluator.forEachOutputPoint([&](std::span<const int64_t> point) {
    points[evaluator.output().at(point)] = evaluator.evaluate<true>(point);
  });
  return points;
}

ReferencePoint referencePointAt(const Spec &spec,
                                std::span<const float *const> buffers,
                                std::span<const int64_t> outputCoords) {
  Evaluator evaluator(spec, buffers);
  const Tensor &output = spec.output();
  if (outputCoords.size() != output.axes.size())
    throw Error("output '" + output.name + "' has " +
                std::to_string(output.axes.size()) + " axes but " +
                std::to_string(outputCoords.size()) +
                " coordinates were given");
  std::vector<int64_t> point(spec.dims.size(), 0);
  for (size_t i = 0; i < output.axes.size(); ++i) {
    const TensorAxis &axis = output.axes[i];
    int64_t coord = outputCoords[i];
    if (coord < 0 || coord >= axis.extent)
      throw Error("coordinate " + std::to_string(coord) + " of output axis '" +
                  axis.name + "' is outside [0, " +
                  std::to_string(axis.extent) + ")");
    // verify() makes every output axis exactly one dimension.
    point[axis.index.terms.front().dim] = coord;
  }
  return evaluator.evaluate<true>(point);
}

float referenceAt(const Spec &spec, std::span<const float *const> buffers,
                  std::span<const int64_t> outputCoords) {
  return static_cast<float>(
      referencePointAt(spec, buffers, outputCoords).value);
}

} // namespace ttile::spec
