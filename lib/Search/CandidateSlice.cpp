//===- Search/CandidateSlice.cpp - Measuring a candidate on a slice -------===//

#include "Search/CandidateSlice.h"

#include "Scheme/Tiling.h"

#include <algorithm>
#include <cmath>
#include <variant>
#include <vector>

namespace ttile::search {
namespace {

/// `spec` with the dimensions of `sizes` shrunk to them, its tensors keeping
/// their strides: each tensor that uses a shrunk dimension spans the first
/// elements of the problem's, with explicit strides.
spec::Spec shrink(const spec::Spec &spec, const std::vector<int64_t> &sizes) {
  spec::Spec slice = spec;
  for (size_t d = 0; d < sizes.size(); ++d)
    slice.dims[d].size = sizes[d];
  for (spec::Tensor &tensor : slice.tensors) {
    bool shrunk = false;
    for (spec::DimId d = 0; d < static_cast<spec::DimId>(sizes.size()); ++d)
      shrunk |= sizes[d] != spec.dims[d].size && tensor.uses(d);
    if (!shrunk)
      continue;
    std::vector<int64_t> strides = tensor.strides();
    for (size_t a = 0; a < tensor.axes.size(); ++a) {
      spec::TensorAxis &axis = tensor.axes[a];
      axis.stride = strides[a];
      // An axis that is one dimension spans exactly its size (the output's
      // must); any other keeps its extent, which still holds every index.
      const spec::AffineExpr &index = axis.index;
      if (index.terms.size() == 1 && index.terms[0].coeff == 1 &&
          index.constant == 0 && !axis.zeroPadded)
        axis.extent = sizes[index.terms[0].dim];
    }
  }
  return slice;
}

} // namespace

CandidateSlice sliceCandidate(const spec::Spec &spec,
                              const scheme::Scheme &candidate, int vectorWidth,
                              double minFlops) {
  const scheme::TileTree tree =
      scheme::buildTileTree(candidate, spec, vectorWidth);
  std::vector<int64_t> sizes;
  for (const spec::Dim &dim : spec.dims)
    sizes.push_back(dim.size);
  // The dimensions of the loops above that run whole, and whether cutting
  // `dim` would shrink what one of them reuses: a tensor it does not index.
  std::vector<spec::DimId> whole;
  auto shrinksReuse = [&](spec::DimId dim) {
    for (spec::DimId loop : whole)
      for (const spec::Tensor &tensor : spec.tensors)
        if (!tensor.uses(loop) && tensor.uses(dim))
          return true;
    return false;
  };
  const double flops = static_cast<double>(spec.flops());
  double sliceFlops = flops;
  scheme::Scheme sliced;
  size_t next = 0;
  for (; next < candidate.atoms.size(); ++next) {
    const scheme::Atom &atom = candidate.atoms[next];
    if (const auto *loop = std::get_if<scheme::TAtom>(&atom)) {
      const spec::DimId dim = spec.dimId(loop->dim);
      // The fewest iterations of this loop that keep minFlops.
      const int64_t kept = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(
                 minFlops * static_cast<double>(loop->count) / sliceFlops)));
      if (kept >= loop->count && sliceFlops < 2 * minFlops)
        break; // Small enough: no loop below can be cut either.
      if (kept >= loop->count || tree.root.extent[dim] != spec.dims[dim].size ||
          shrinksReuse(dim)) {
        whole.push_back(dim);
        sliced.atoms.push_back(atom);
        continue;
      }
      sizes[dim] = sizes[dim] / loop->count * kept;
      sliceFlops = sliceFlops / static_cast<double>(loop->count) *
                   static_cast<double>(kept);
      if (kept > 1) {
        sliced.atoms.push_back(scheme::TAtom{kept, loop->dim});
        ++next;
        break;
      }
      continue;
    }
    // Other loops run whole; the atoms from the first Pack, Hoist, U or V
    // on are the candidate's nest, never cut.
    if (const auto *r = std::get_if<scheme::RAtom>(&atom))
      whole.push_back(spec.dimId(r->dim));
    else if (const auto *lambda = std::get_if<scheme::LambdaAtom>(&atom))
      whole.push_back(spec.dimId(lambda->dim));
    else if (const auto *parallel = std::get_if<scheme::TparAtom>(&atom))
      whole.push_back(spec.dimId(parallel->dim));
    else if (const auto *fused = std::get_if<scheme::TfusedAtom>(&atom))
      for (const auto &[dim, count] : fused->loops)
        whole.push_back(spec.dimId(dim));
    else
      break;
    sliced.atoms.push_back(atom);
  }
  if (sliceFlops == flops)
    return {spec, candidate, 1};
  sliced.atoms.insert(sliced.atoms.end(),
                      candidate.atoms.begin() +
                          static_cast<std::ptrdiff_t>(next),
                      candidate.atoms.end());
  return {shrink(spec, sizes), std::move(sliced), flops / sliceFlops};
}

} // namespace ttile::search
