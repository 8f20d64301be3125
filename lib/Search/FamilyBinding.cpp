//===- Search/FamilyBinding.cpp - Which microkernels fit a spec -----------===//

#include "Search/FamilyBinding.h"

#include "Search/ContractionRoles.h"
#include "ttile/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ttile::search {
namespace {

/// An axis indexed by an output dimension plus a reduction one, as a
/// convolution's input row is by h*stride + r*dilation.
struct SlidingAxis {
  spec::DimId output;
  spec::DimId window;
};

/// The sliding axes of `tensor`, in its storage order.
std::vector<SlidingAxis> slidingAxes(const spec::Spec &spec,
                                     const spec::Tensor &tensor) {
  std::vector<SlidingAxis> axes;
  for (const spec::TensorAxis &axis : tensor.axes) {
    const std::vector<spec::AffineExpr::Term> &terms = axis.index.terms;
    if (terms.size() != 2 ||
        spec.isReduction(terms[0].dim) == spec.isReduction(terms[1].dim))
      continue;
    const bool firstIsWindow = spec.isReduction(terms[0].dim);
    axes.push_back(
        {terms[firstIsWindow ? 1 : 0].dim, terms[firstIsWindow ? 0 : 1].dim});
  }
  return axes;
}

Error noFamily(const spec::Spec &spec, const std::string &why) {
  return Error("no microkernel family fits " + spec.str() + ": " + why);
}

const std::string &nameOf(const spec::Spec &spec, spec::DimId dim) {
  return spec.dims[dim].name;
}

/// The two sliding axes of a convolution's image, or an error naming it.
std::vector<SlidingAxis> imageRows(const spec::Spec &spec, int image) {
  std::vector<SlidingAxis> rows = slidingAxes(spec, spec.tensors[image]);
  if (rows.size() != 2)
    throw noFamily(spec, "its input " + spec.tensors[image].name + " has " +
                             std::to_string(rows.size()) +
                             " sliding axes (an output index plus a window "
                             "index); a convolution's image has two");
  return rows;
}

MicrokernelFamily depthwiseFamily(const spec::Spec &spec, spec::DimId vector) {
  std::optional<int> image;
  for (int input : spec.inputIndices())
    if (!slidingAxes(spec, spec.tensors[input]).empty())
      image = input;
  if (!image)
    throw noFamily(spec, "the output's last index '" + nameOf(spec, vector) +
                             "' is in both inputs, and neither slides a "
                             "window; ttile vectorizes the output's last "
                             "index, which must be in one input only, or in "
                             "both of a depthwise convolution");
  std::vector<SlidingAxis> rows = imageRows(spec, *image);
  const MicrokernelFamily &family = MicrokernelFamily::depthwise();
  return family.withDimNames({{family.vectorDim, nameOf(spec, vector)},
                              {"w", nameOf(spec, rows[1].output)},
                              {"s", nameOf(spec, rows[1].window)},
                              {family.reuseDim, nameOf(spec, rows[0].window)}});
}

MicrokernelFamily planarFamily(const spec::Spec &spec, spec::DimId vector,
                               int image) {
  std::vector<SlidingAxis> rows = imageRows(spec, image);
  if (rows[1].output != vector)
    throw noFamily(spec, "its output's last index '" + nameOf(spec, vector) +
                             "' slides in " + spec.tensors[image].name +
                             ", but not along its last sliding axis");
  const MicrokernelFamily &family = MicrokernelFamily::planar();
  return family.withDimNames(
      {{family.vectorDim, nameOf(spec, vector)},
       {"s", nameOf(spec, rows[1].window)},
       {family.combinationDim, nameOf(spec, rows[0].output)},
       {family.reuseDim, nameOf(spec, rows[0].window)}});
}

MicrokernelFamily conv2dFamily(const spec::Spec &spec, spec::DimId vector,
                               int vectorInput, int image) {
  std::vector<SlidingAxis> rows = imageRows(spec, image);
  // The channel reduction: over a plain axis of both operands, the largest.
  std::optional<spec::DimId> channels;
  for (const spec::TensorAxis &axis : spec.tensors[image].axes) {
    if (axis.index.terms.size() != 1)
      continue;
    const spec::DimId dim = axis.index.terms.front().dim;
    if (spec.isReduction(dim) && spec.tensors[vectorInput].uses(dim) &&
        (!channels || spec.dims[dim].size > spec.dims[*channels].size))
      channels = dim;
  }
  if (!channels)
    throw noFamily(spec, "no reduction index is on a plain axis of both " +
                             spec.tensors[image].name + " and " +
                             spec.tensors[vectorInput].name +
                             " (a convolution's input channels)");
  const MicrokernelFamily &family = MicrokernelFamily::conv2d();
  return family.withDimNames(
      {{family.vectorDim, nameOf(spec, vector)},
       {family.reuseDim, nameOf(spec, *channels)},
       {family.combinationDim, nameOf(spec, rows[0].output)},
       {"r", nameOf(spec, rows[0].window)},
       {"w", nameOf(spec, rows[1].output)},
       {"s", nameOf(spec, rows[1].window)}});
}

MicrokernelFamily matmulFamily(const spec::Spec &spec) {
  ContractionRoles roles = contractionRoles(spec);
  if (!roles.complete())
    throw noFamily(
        spec, "no index plays the matmul microkernel's " +
                  (roles.combination.empty()
                       ? "i (an output index of " +
                             spec.tensors[roles.broadcastInput].name + " only)"
                       : std::string("k (a reduction index of both inputs)")) +
                  "; give it one of size 1");
  const MicrokernelFamily &family = MicrokernelFamily::matmul();
  return family.withDimNames({{family.vectorDim, roles.vector},
                              {family.combinationDim, roles.combination},
                              {family.reuseDim, roles.reduction}});
}

} // namespace

MicrokernelFamily familyOf(const spec::Spec &spec) {
  const spec::AffineExpr &last = spec.output().axes.back().index;
  if (last.terms.size() != 1)
    throw noFamily(spec, "the output's last axis is not one index");
  const spec::DimId vector = last.terms.front().dim;
  const std::vector<int> inputs = spec.inputIndices();
  if (inputs.size() != 2)
    throw noFamily(spec, "it has " + std::to_string(inputs.size()) +
                             " inputs; every family multiplies two");
  const bool inFirst = spec.tensors[inputs[0]].uses(vector);
  const bool inSecond = spec.tensors[inputs[1]].uses(vector);
  if (inFirst && inSecond)
    return depthwiseFamily(spec, vector);
  if (!inFirst && !inSecond)
    throw noFamily(spec, "the output's last index '" + nameOf(spec, vector) +
                             "' is in neither input");
  const int vectorInput = inFirst ? inputs[0] : inputs[1];
  const int broadcastInput = inFirst ? inputs[1] : inputs[0];
  if (!slidingAxes(spec, spec.tensors[vectorInput]).empty())
    return planarFamily(spec, vector, vectorInput);
  if (slidingAxes(spec, spec.tensors[broadcastInput]).empty())
    return matmulFamily(spec);
  return conv2dFamily(spec, vector, vectorInput, broadcastInput);
}

} // namespace ttile::search
