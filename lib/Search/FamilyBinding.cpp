//===- Search/FamilyBinding.cpp - Which microkernels fit a spec -----------===//

#include "Search/FamilyBinding.h"

#include "Search/ContractionRoles.h"
#include "ttile/Error.h"

#include <algorithm>
#include <map>
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

/// For a spec whose input `image` slides a window.
MicrokernelFamily depthwiseFamily(const spec::Spec &spec, spec::DimId vector,
                                  int image) {
  std::vector<SlidingAxis> rows = imageRows(spec, image);
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

/// The matmul family, or with roles.lanewise the lanewise one, over the
/// roles of ContractionRoles.h.
MicrokernelFamily productFamily(const spec::Spec &spec) {
  ContractionRoles roles = contractionRoles(spec);
  const MicrokernelFamily &family = roles.lanewise
                                        ? MicrokernelFamily::lanewise()
                                        : MicrokernelFamily::matmul();
  auto missing = [&](const std::string &role, const std::string &what) {
    return noFamily(spec, "no index plays the " + family.name +
                              " microkernel's " + role + " (" + what +
                              "); give it one of size 1");
  };
  const std::string &a = spec.tensors[roles.broadcastInput].name;
  const std::string &b = spec.tensors[roles.vectorInput].name;
  if (roles.combination.empty())
    throw missing("i", "an output index of " + a + " only");
  if (roles.lanewise && roles.columns.empty())
    throw missing("j", "an output index of " + b + " only");
  if (roles.reduction.empty())
    throw missing("k", "a reduction index of both inputs");
  std::map<std::string, std::string> names = {
      {family.vectorDim, roles.vector},
      {family.combinationDim, roles.combination},
      {family.reuseDim, roles.reduction}};
  if (roles.lanewise)
    names["j"] = roles.columns;
  return family.withDimNames(names);
}

/// The index that alone indexes `tensor`'s contiguous axis; none where a
/// sum (a sliding window), a stride or an offset indexes it.
std::optional<spec::DimId> contiguousIndex(const spec::Tensor &tensor) {
  if (tensor.axes.empty())
    return std::nullopt;
  const spec::AffineExpr &index = tensor.axes.back().index;
  if (index.terms.size() != 1 || index.terms.front().coeff != 1 ||
      index.constant != 0)
    return std::nullopt;
  return index.terms.front().dim;
}

} // namespace

std::optional<DotProduct> dotProduct(const spec::Spec &spec) {
  const std::vector<int> inputs = spec.inputIndices();
  const spec::Tensor &output = spec.output();
  if (inputs.size() != 2 || output.axes.empty())
    return std::nullopt;
  std::optional<spec::DimId> reduction =
      contiguousIndex(spec.tensors[inputs[0]]);
  if (!reduction || !spec.isReduction(*reduction) ||
      contiguousIndex(spec.tensors[inputs[1]]) != reduction)
    return std::nullopt;
  std::optional<spec::DimId> rows = contiguousIndex(output);
  if (!rows)
    return std::nullopt;
  for (int input : inputs)
    if (!slidingAxes(spec, spec.tensors[input]).empty())
      return std::nullopt;
  for (int matrix : inputs) {
    const spec::Tensor &vector = spec.tensors[inputs[0] + inputs[1] - matrix];
    if (!spec.tensors[matrix].uses(*rows))
      continue;
    // The vector holds no output index of its own: with one, its own rows
    // would be reused against the matrix's, and a matmul's microkernels
    // (over a transposed copy) serve better. One of size 1 is no row: an
    // inference engine's fully connected layer on one image, "ik,jk->ij"
    // with i = 1, is a dot product over the weights' rows j.
    bool ownRows = false;
    for (size_t d = 0; d < spec.dims.size(); ++d) {
      const auto dim = static_cast<spec::DimId>(d);
      ownRows =
          ownRows || (vector.uses(dim) && output.uses(dim) &&
                      !spec.tensors[matrix].uses(dim) && spec.dims[d].size > 1);
    }
    if (!ownRows)
      return DotProduct{*rows, *reduction};
  }
  return std::nullopt;
}

MicrokernelFamily familyOf(const spec::Spec &spec) {
  if (std::optional<DotProduct> dot = dotProduct(spec)) {
    const MicrokernelFamily &family = MicrokernelFamily::dot();
    return family.withDimNames(
        {{family.combinationDim, nameOf(spec, dot->rows)},
         {family.vectorDim, nameOf(spec, dot->reduction)}});
  }
  if (spec.output().axes.empty())
    throw noFamily(spec, "its output is a scalar, with no index to tile; "
                         "give it one of size 1");
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
  if (inFirst && inSecond) {
    auto image = std::ranges::find_if(inputs, [&](int input) {
      return !slidingAxes(spec, spec.tensors[input]).empty();
    });
    return image != inputs.end() ? depthwiseFamily(spec, vector, *image)
                                 : productFamily(spec);
  }
  if (!inFirst && !inSecond)
    throw noFamily(spec, "the output's last index '" + nameOf(spec, vector) +
                             "' is in neither input");
  const int vectorInput = inFirst ? inputs[0] : inputs[1];
  const int broadcastInput = inFirst ? inputs[1] : inputs[0];
  if (!slidingAxes(spec, spec.tensors[vectorInput]).empty())
    return planarFamily(spec, vector, vectorInput);
  if (slidingAxes(spec, spec.tensors[broadcastInput]).empty())
    return productFamily(spec);
  return conv2dFamily(spec, vector, vectorInput, broadcastInput);
}

} // namespace ttile::search
