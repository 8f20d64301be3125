//===- Search/CandidateSlice.cpp - Measuring a candidate on a slice -------===//

#include "Search/CandidateSlice.h"

#include "Scheme/Footprint.h"
#include "Scheme/Normalize.h"
#include "Scheme/Tiling.h"

#include <algorithm>
#include <cmath>
#include <optional>
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

/// The cache level that holds `bytes` reused (0 for the L1): the first at
/// most half full with them; the number of levels for memory, beyond
/// twice the last level's capacity. Nullopt within a factor of two of a
/// level's capacity, where how much stays cached is anyone's guess: a
/// shared L3 holds less than its size, and on TCCG 21 a Lambda whose 30 MB
/// a 32-MB L3 "held" ran its 9-MB slice 15% faster than the problem.
std::optional<size_t> reuseLevel(int64_t bytes,
                                 const std::vector<CacheLevel> &caches) {
  for (size_t level = 0; level < caches.size(); ++level) {
    if (2 * bytes <= caches[level].bytes)
      return level;
    if (bytes <= 2 * caches[level].bytes)
      return std::nullopt;
  }
  return caches.size();
}

/// A loop above the cut that runs whole: what one of its iterations covers,
/// and the cache level it reuses its data from on the whole problem.
struct WholeLoop {
  std::vector<int64_t> iterationTile;
  std::optional<size_t> level;
};

} // namespace

CandidateSlice sliceCandidate(const spec::Spec &spec,
                              const scheme::Scheme &candidate,
                              const HostInfo &target, int workers,
                              double minFlops) {
  const scheme::TileTree tree =
      scheme::buildTileTree(candidate, spec, target.vectorWidth);
  std::vector<int64_t> sizes;
  for (const spec::Dim &dim : spec.dims)
    sizes.push_back(dim.size);
  // The extent the loops left cover per dimension: beyond the size where
  // the last tile is masked.
  std::vector<int64_t> covered = tree.root.extent;
  // One iteration of a loop's node: its child; of a Lambda's, the largest
  // of its parts' nests.
  auto iterationOf =
      [&](const scheme::TileNode &loop) -> const scheme::TileNode & {
    if (loop.kind != scheme::TileNode::Kind::Sequence)
      return loop.child();
    const scheme::TileNode *largest = &loop.children.front().child();
    for (const scheme::TileNode &part : loop.children)
      if (scheme::footprintBytes(spec, part.child().extent) >
          scheme::footprintBytes(spec, largest->extent))
        largest = &part.child();
    return *largest;
  };
  // The loops above that run whole. A cut below one must leave the data
  // one of its iterations touches at the cache level it is reused from on
  // the whole problem. The dimensions whose loops below can no longer be
  // cut: one above runs whole. Those of a Lambda above, whose parallel
  // loops below are not cut: a worker's share of them spans parts of
  // different sizes. The iterations of the parallel loops kept above (one
  // per worker, cut or not) per dimension: a loop below over the same
  // dimension is cut in each worker's share.
  std::vector<WholeLoop> wholeLoops;
  std::vector<bool> cutNoFurther(spec.dims.size(), false);
  std::vector<bool> lambdaAbove(spec.dims.size(), false);
  std::vector<int64_t> parallelAbove(spec.dims.size(), 1);
  auto keepsReuse = [&](const std::vector<int64_t> &cutSizes) {
    for (const WholeLoop &loop : wholeLoops) {
      std::vector<int64_t> tile = loop.iterationTile;
      for (size_t d = 0; d < tile.size(); ++d)
        tile[d] = std::min(tile[d], cutSizes[d]);
      if (!loop.level || reuseLevel(scheme::footprintBytes(spec, tile),
                                    target.dataCaches) != loop.level)
        return false;
    }
    return true;
  };
  scheme::Scheme sliced;
  const scheme::TileNode *node = &tree.root;
  auto keepWhole = [&](const scheme::Atom &atom,
                       const std::vector<spec::DimId> &dims) {
    const std::vector<int64_t> &tile = iterationOf(*node).extent;
    wholeLoops.push_back({tile, reuseLevel(scheme::footprintBytes(spec, tile),
                                           target.dataCaches)});
    for (spec::DimId dim : dims)
      cutNoFurther[dim] = true;
    sliced.atoms.push_back(atom);
  };
  double sliceFlops = static_cast<double>(spec.flops());
  double factor = 1;
  // The loops above the accumulators' Hoist, as the compiler infers it:
  // each of their reduction passes starts from the output's partial sums.
  const scheme::Scheme hoisted = scheme::withInferredHoist(candidate, spec);
  const auto hoistIndex = static_cast<size_t>(
      std::find_if(hoisted.atoms.begin(), hoisted.atoms.end(),
                   [](const scheme::Atom &atom) {
                     return std::holds_alternative<scheme::HoistAtom>(atom);
                   }) -
      hoisted.atoms.begin());
  bool cutsReductionPasses = false;
  size_t next = 0;
  // Cuts `dims` to their `cutSizes`, where they may be cut: fewer than
  // the extent covered, whole tiles inside the size, no loop over them
  // above that stays, and the reuse of the whole loops kept. The problem
  // lasts as many slices as the extent covered holds the cut one: a masked
  // tile runs every iteration of the loops below it, as a whole one does.
  auto cut = [&](const std::vector<spec::DimId> &dims,
                 std::vector<int64_t> cutSizes) {
    for (spec::DimId dim : dims)
      if (cutSizes[dim] >= covered[dim] || cutSizes[dim] > sizes[dim] ||
          cutNoFurther[dim])
        return false;
    if (!keepsReuse(cutSizes))
      return false;
    for (spec::DimId dim : dims) {
      sliceFlops = sliceFlops * static_cast<double>(cutSizes[dim]) /
                   static_cast<double>(sizes[dim]);
      factor *= static_cast<double>(covered[dim]) /
                static_cast<double>(cutSizes[dim]);
      covered[dim] = cutSizes[dim];
      cutsReductionPasses |= spec.isReduction(dim) && next < hoistIndex;
    }
    sizes = std::move(cutSizes);
    return true;
  };
  // A parallel loop (Tpar, Tfused) whose outermost loop has an iteration
  // for each worker is cut as nested T loops are, for each worker: its
  // iterations keep the fewest that keep minFlops, one per worker where
  // one is enough. On the problem each worker's block of iterations is a
  // range of that outer loop's, and so it is on the slice: the workers
  // share what they share on the problem. (Cutting the outer loops of a
  // Tfused([(g,3),(d,2)]) to one, and leaving the workers (g0,d0) and
  // (g0,d1), let them share the g-slice of a tensor that on the problem
  // they do not: on TCCG 29 such a slice ran at 358 GFLOP/s, its problem
  // at 317, and it won.) Below a parallel loop of one iteration per worker
  // at most, cut or not, loops are cut as at the top, those over its
  // dimensions within each worker's share (parallelAbove): no iteration
  // reuses what another left in a cache. (Measured whole, two-worker
  // candidates with a Tpar or Tfused near their top ran 0.3-0.8 s a call
  // on the large TCCG cases, where a slice lasts 20 ms.) Below one of
  // several, nothing is cut, as below a T loop cut to several. Any other
  // runs whole, a loop below it cut only where its reuse holds. Returns
  // whether the loops below may be cut.
  auto sliceParallel = [&](const scheme::Atom &atom) {
    std::vector<std::pair<spec::DimId, int64_t>> kept = node->loops;
    std::vector<spec::DimId> dims;
    int64_t iterations = 1;
    for (const auto &[dim, count] : kept) {
      dims.push_back(dim);
      iterations *= count;
    }
    // Each worker's iterations, as loops: its share of the outermost, then
    // the others. The fewest that keep minFlops stay, from the outermost
    // in, as of nested T loops: each keeps one while the loops inside it
    // give enough, the next what is lacking, the rest whole.
    const auto needed =
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(
                                 minFlops * static_cast<double>(iterations) /
                                 (sliceFlops * static_cast<double>(workers)))));
    // Where the workers do not divide the outermost loop, each keeps its
    // whole iterations of it (the shortest share's), and the problem lasts
    // as long as its longest share: ThreadPool.h's contiguous blocks of the
    // fused iterations, ceil(iterations / workers), where the slice's
    // workers run even shares.
    const int64_t outerPerWorker = kept.front().second / workers;
    const int64_t sharePerWorker =
        outerPerWorker * (iterations / kept.front().second);
    int64_t perWorker = 1;
    bool cuttable =
        outerPerWorker > 0 && needed <= sharePerWorker &&
        needed * workers < iterations &&
        std::none_of(dims.begin(), dims.end(),
                     [&](spec::DimId dim) { return lambdaAbove[dim]; });
    if (cuttable) {
      kept.front().second = outerPerWorker;
      int64_t inside = sharePerWorker;
      for (auto &[dim, count] : kept) {
        inside /= count;
        if (inside >= needed) {
          count = 1;
          continue;
        }
        count = (needed + inside - 1) / inside;
        perWorker = count * inside;
        break;
      }
      kept.front().second *= workers;
      // What the loop covers of each dimension, cut; the others keep
      // their sizes.
      std::vector<int64_t> keptExtent = node->child().extent;
      for (const auto &[dim, count] : kept)
        keptExtent[dim] *= count;
      std::vector<int64_t> cutSizes = sizes;
      std::vector<spec::DimId> shrunk;
      for (spec::DimId dim : dims)
        if (keptExtent[dim] < covered[dim] &&
            std::find(shrunk.begin(), shrunk.end(), dim) == shrunk.end()) {
          cutSizes[dim] = keptExtent[dim];
          shrunk.push_back(dim);
        }
      cuttable = cut(shrunk, std::move(cutSizes));
      if (cuttable)
        factor *= static_cast<double>((iterations + workers - 1) / workers *
                                      workers) /
                  static_cast<double>(iterations);
    }
    if (!cuttable && iterations > workers) {
      keepWhole(atom, dims);
      return true;
    }
    for (const auto &[dim, count] : kept)
      parallelAbove[dim] *= count;
    if (kept.size() == 1 && std::holds_alternative<scheme::TparAtom>(atom)) {
      sliced.atoms.push_back(
          scheme::TparAtom{kept[0].second, spec.dims[kept[0].first].name});
    } else {
      scheme::TfusedAtom fused;
      for (const auto &[dim, count] : kept)
        fused.loops.emplace_back(spec.dims[dim].name, count);
      sliced.atoms.push_back(fused);
    }
    // Several iterations per worker reach minFlops: nothing below is cut.
    return perWorker == 1;
  };
  for (; next < candidate.atoms.size(); ++next, node = &iterationOf(*node)) {
    const scheme::Atom &atom = candidate.atoms[next];
    if (const auto *loop = std::get_if<scheme::TAtom>(&atom)) {
      const spec::DimId dim = spec.dimId(loop->dim);
      // The fewest iterations of this loop that keep minFlops, each a
      // whole tile: on a masked dimension, only those inside its size.
      const int64_t tile = covered[dim] / (parallelAbove[dim] * loop->count);
      const int64_t kept = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(
                 minFlops * static_cast<double>(loop->count) / sliceFlops)));
      if (kept >= loop->count && sliceFlops < 2 * minFlops)
        break; // Small enough: no loop below can be cut either.
      std::vector<int64_t> cutSizes = sizes;
      cutSizes[dim] = parallelAbove[dim] * kept * tile;
      if (!cut({dim}, std::move(cutSizes))) {
        keepWhole(atom, {dim});
        continue;
      }
      if (kept > 1) {
        sliced.atoms.push_back(scheme::TAtom{kept, loop->dim});
        ++next;
        break;
      }
      continue;
    }
    if (const auto *lambda = std::get_if<scheme::LambdaAtom>(&atom)) {
      // A Lambda is cut as a T loop is, each part keeping its share of its
      // repetitions (at least one, so that both microkernels run), and the
      // nest below it may be cut further, its loops over the Lambda's
      // dimension too: every part runs the same loops below, so cutting one
      // to k of its n iterations leaves k/n of each part (TCCG 20's
      // Lambda(d,[(2,4),(2,5)]) T(4,d) ...: Lambda(d,[(1,4),(1,5)]), 9 of
      // d's 72, where 36 of them ran 0.9 s a call on a Zen 4).
      if (sliceFlops < 2 * minFlops)
        break;
      const spec::DimId dim = spec.dimId(lambda->dim);
      scheme::LambdaAtom keptParts = *lambda;
      std::vector<int64_t> cutSizes = sizes;
      cutSizes[dim] = 0;
      for (size_t part = 0; part < lambda->parts.size(); ++part) {
        int64_t &repetitions = keptParts.parts[part].first;
        repetitions = std::max<int64_t>(
            1, static_cast<int64_t>(std::ceil(
                   minFlops * static_cast<double>(repetitions) / sliceFlops)));
        cutSizes[dim] += repetitions * node->children[part].child().extent[dim];
      }
      cutSizes[dim] *= parallelAbove[dim];
      if (!cut({dim}, std::move(cutSizes))) {
        keepWhole(atom, {dim});
        continue;
      }
      lambdaAbove[dim] = true;
      sliced.atoms.push_back(keptParts);
      continue;
    }
    // An R loop runs whole; the atoms from the first Pack, Hoist, U or V
    // on are the candidate's nest, never cut.
    if (const auto *r = std::get_if<scheme::RAtom>(&atom))
      keepWhole(atom, {spec.dimId(r->dim)});
    else if (std::holds_alternative<scheme::TparAtom>(atom) ||
             std::holds_alternative<scheme::TfusedAtom>(atom)) {
      if (!sliceParallel(atom)) {
        ++next;
        break;
      }
    } else
      break;
  }
  if (factor == 1)
    return {spec, candidate, 1, false};
  sliced.atoms.insert(sliced.atoms.end(),
                      candidate.atoms.begin() +
                          static_cast<std::ptrdiff_t>(next),
                      candidate.atoms.end());
  return {shrink(spec, sizes), std::move(sliced), factor, cutsReductionPasses};
}

} // namespace ttile::search
