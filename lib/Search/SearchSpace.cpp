//===- Search/SearchSpace.cpp - The structured space of a problem ---------===//

#include "Search/SearchSpace.h"

#include "Scheme/Footprint.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Tiling.h"
#include "ttile/Error.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace ttile::search {
namespace {

/// Repetitions of each size in a combination a*x1 + b*x2: small counts keep
/// the Lambda's tile close to a microkernel, as in the paper's examples
/// (2*11 + 1*12 = 34, 8 + 9 = 17).
constexpr int64_t kMaxRepetitions = 4;

/// The reuse loop above the microkernel covers all of c or at least this
/// many iterations, to amortize the accumulators' loads and stores.
constexpr int64_t kMinReuseIterations = 32;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      divisors.push_back(d);
      if (d != n / d)
        divisors.push_back(n / d);
    }
  std::sort(divisors.begin(), divisors.end());
  return divisors;
}

/// The largest divisor of `n` no greater than `bound` (at least 1).
int64_t largestDivisorAtMost(int64_t n, int64_t bound) {
  std::vector<int64_t> divisors = divisorsOf(n);
  return *std::prev(std::upper_bound(divisors.begin(), divisors.end(),
                                     std::max<int64_t>(bound, 1)));
}

template <typename T>
const T &pickUniform(const std::vector<T> &items, std::mt19937_64 &random) {
  std::uniform_int_distribution<size_t> index(0, items.size() - 1);
  return items[index(random)];
}

/// The dimensions of `spec` that the output and every input use, but
/// `microkernelDims`, in the output's order (SearchSpace.h, batchDims_).
std::vector<spec::DimId>
batchDimensions(const spec::Spec &spec,
                const std::vector<spec::DimId> &microkernelDims) {
  const std::vector<int> inputs = spec.inputIndices();
  std::vector<spec::DimId> batch;
  for (const spec::TensorAxis &axis : spec.output().axes)
    for (size_t d = 0; d < spec.dims.size(); ++d) {
      const auto dim = static_cast<spec::DimId>(d);
      if (axis.index.uses(dim) && !std::ranges::count(batch, dim) &&
          !std::ranges::count(microkernelDims, dim) &&
          std::ranges::all_of(inputs,
                              [&](int t) { return spec.tensors[t].uses(dim); }))
        batch.push_back(dim);
    }
  return batch;
}

} // namespace

std::string MicrokernelChoice::str(const MicrokernelFamily &family) const {
  scheme::Scheme atoms{kernel.atoms(family, combination.has_value())};
  if (combination)
    atoms.atoms.insert(atoms.atoms.begin(), *combination);
  return scheme::printScheme(atoms) + (partial ? " (partial tiles)" : "");
}

SearchSpace::SearchSpace(const spec::Spec &spec,
                         const MicrokernelFamily &family,
                         std::vector<MicrokernelClass> classes, int vectorWidth,
                         int64_t packBudgetBytes, int workers,
                         int fullRateLanes)
    : spec_(spec), family_(family),
      vectorWidth_(scheme::lanesAlong(spec, family.vectorDim, vectorWidth)),
      packBudgetBytes_(packBudgetBytes), workers_(workers) {
  if (std::optional<spec::DimId> vector = spec.findDim(family.vectorDim)) {
    const int lanes = scheme::searchLanes(spec.dims[*vector].size, vectorWidth,
                                          fullRateLanes);
    if (lanes != vectorWidth_)
      vectorWidth_ = fixedLanes_ = lanes;
  }
  for (const std::string &name : family.unrolled) {
    std::optional<spec::DimId> dim = spec.findDim(name);
    if (!dim)
      throw Error("the " + family.name + " microkernels unroll '" + name +
                  "', which the " + spec.name + " spec lacks");
    familyDims_.push_back(*dim);
  }
  combinationIndex_ = static_cast<size_t>(
      std::find(family.unrolled.begin(), family.unrolled.end(),
                family.combinationDim) -
      family.unrolled.begin());
  batchDims_ = batchDimensions(spec, familyDims_);
  for (int t : spec.inputIndices()) {
    const spec::Tensor &tensor = spec.tensors[t];
    if (!tensor.uses(spec.dimId(family.vectorDim)))
      continue;
    if (!tensor.uses(spec.dimId(family.combinationDim)))
      packedTensor_ = t;
    // An input zero-padded along the vectorized dimension (the planar
    // family's image) is read with masked loads at the border, or from a
    // packed copy that holds the zeros, a uniform loop: either may win
    // (MobileNet-5dw in NCHW: 57 and 70 GFLOP/s for U(3,s) U(4,h) U(2,w)).
    if (tensor.axes.back().zeroPadded) {
      packedTensor_ = t;
      packedForPadding_ = true;
    }
  }
  if (packedTensor_) {
    const spec::Tensor &tensor = spec.tensors[*packedTensor_];
    const int vectorAxis = *tensor.axisOf(spec.dimId(family.vectorDim));
    if (vectorAxis != static_cast<int>(tensor.axes.size()) - 1) {
      for (int a = 0; a < static_cast<int>(tensor.axes.size()); ++a)
        if (a != vectorAxis)
          transposingOrder_.push_back(tensor.axes[a].name);
      transposingOrder_.push_back(tensor.axes[vectorAxis].name);
    }
  }
  for (const MicrokernelClass &microkernelClass : classes) {
    // The table reader refuses such classes; one built in code must not
    // send the search dividing by zero.
    for (size_t i = 0; i < familyDims_.size(); ++i)
      if (i != combinationIndex_ && microkernelClass.shape.factors.at(i) < 1)
        throw Error("a " + family.name + " microkernel class unrolls '" +
                        family.unrolled[i] + "' " +
                        std::to_string(microkernelClass.shape.factors[i]) +
                        " times",
                    ErrorCode::Internal);
    addDividingChoices(microkernelClass);
  }
  // A problem smaller than the classes' microkernels (13 columns where they
  // have two vectors or more, 13 reductions where they unroll 2): each
  // class serves cut to the problem, where it divides it. Without this,
  // 32x13x13 had the fallback alone, one candidate for 20 trials, at 118
  // GFLOP/s where 4 x U(8,i) and 2 x 9 + 2 x 7 rows ran at 147.
  if (choices_.empty()) {
    for (const MicrokernelClass &microkernelClass : classes)
      addDividingChoices(cutToProblem(microkernelClass));
    // Two classes may cut to one choice, which is drawn as one.
    std::set<std::string> seen;
    std::erase_if(choices_, [&](const MicrokernelChoice &choice) {
      return !seen.insert(choice.str(family_)).second;
    });
  }
  if (choices_.empty())
    choices_.push_back(fallback(classes));
}

MicrokernelClass
SearchSpace::cutToProblem(const MicrokernelClass &microkernelClass) const {
  MicrokernelClass cut = microkernelClass;
  // One row of a product (a vector times a matrix, M = 1): the
  // accumulators the rows held go along the vectors instead, one row of 16
  // vectors where the class had 8 rows of 2 (1x1024x1024 on Zen 5: 52
  // GFLOP/s, where the class's 2 vectors on one row ran 20). Not for a
  // convolution, whose wider tiles would also multiply the window's loads
  // in registers, unmeasured.
  const bool oneRow = family_.windowDims.empty() &&
                      spec_.dims[familyDims_[combinationIndex_]].size == 1 &&
                      !microkernelClass.combinationSizes.empty();
  for (size_t i = 0; i < familyDims_.size(); ++i) {
    if (i == combinationIndex_)
      continue; // Its sizes are drawn, divided or combined, as they are.
    int64_t &factor = cut.shape.factors[i];
    const int64_t extent = spec_.dims[familyDims_[i]].size;
    if (family_.unrolled[i] == family_.vectorDim && oneRow)
      factor *= microkernelClass.combinationSizes.front();
    factor = family_.unrolled[i] == family_.vectorDim
                 ? std::min(factor, ceilDiv(extent, vectorWidth_))
                 : largestDivisorAtMost(extent, factor);
  }
  if (oneRow)
    cut.combinationSizes = {1};
  return cut;
}

std::vector<int64_t> SearchSpace::tileOf(const MicrokernelChoice &choice) const {
  std::vector<int64_t> tile(spec_.dims.size(), 1);
  for (size_t i = 0; i < familyDims_.size(); ++i) {
    int64_t factor = choice.kernel.factors[i];
    if (family_.unrolled[i] == family_.vectorDim)
      factor *= vectorWidth_;
    tile[familyDims_[i]] = factor;
  }
  if (choice.combination) {
    int64_t total = 0;
    for (const auto &[repetitions, size] : choice.combination->parts)
      total += repetitions * size;
    tile[spec_.dimId(family_.combinationDim)] = total;
  }
  return tile;
}

void SearchSpace::addDividingChoices(const MicrokernelClass &microkernelClass) {
  const spec::DimId combinationDim = spec_.dimId(family_.combinationDim);
  const spec::DimId vectorDim = spec_.dimId(family_.vectorDim);
  // Every dimension but the vectorized one must be divided. The vectorized
  // one may end in a masked tail (K = 28269 where the paper padded to
  // 28272): masking costs nothing measurable, and without it a size with no
  // factor of 16 would leave only the fallback.
  auto divides = [&](MicrokernelChoice &choice) {
    std::vector<int64_t> tile = tileOf(choice);
    for (size_t d = 0; d < tile.size(); ++d)
      if (static_cast<spec::DimId>(d) != vectorDim &&
          spec_.dims[d].size % tile[d] != 0)
        return false;
    int64_t vectorExtent = spec_.dims[vectorDim].size;
    if (tile[vectorDim] > vectorExtent + vectorWidth_ - 1)
      return false; // Whole vectors of padding: a smaller kernel fits.
    choice.partial = vectorExtent % tile[vectorDim] != 0;
    return true;
  };

  const std::vector<int64_t> &sizes = microkernelClass.combinationSizes;
  for (int64_t size : sizes) {
    MicrokernelChoice single;
    single.kernel = microkernelClass.shape;
    single.kernel.factors[combinationIndex_] = size;
    if (divides(single))
      choices_.push_back(single);
  }
  const int64_t extent = spec_.dims[combinationDim].size;
  auto addCombination = [&](int64_t a, int64_t first, int64_t b,
                            int64_t second) {
    MicrokernelChoice combined;
    combined.kernel = microkernelClass.shape;
    combined.kernel.factors[combinationIndex_] = first;
    combined.combination = scheme::LambdaAtom{family_.combinationDim,
                                              {{a, first}, {b, second}}};
    if (divides(combined))
      choices_.push_back(combined);
  };
  for (size_t first = 0; first < sizes.size(); ++first)
    for (size_t second = first + 1; second < sizes.size(); ++second)
      for (int64_t a = 1; a <= kMaxRepetitions; ++a)
        for (int64_t b = 1; b <= kMaxRepetitions; ++b) {
          int64_t total = a * sizes[first] + b * sizes[second];
          if (total <= extent && extent % total == 0)
            addCombination(a, sizes[first], b, sizes[second]);
        }
  // Where no size of the class divides the extent, also the combination
  // covering all of it with as many of the larger size as possible: a
  // pointwise layer's column of 17 x 17 = 289 pixels runs 44 microkernels
  // of 6 rows and 5 of 5 (289 = 5*5 + 44*6), not 17 of 17 = 5 + 2*6.
  if (std::any_of(sizes.begin(), sizes.end(),
                  [&](int64_t size) { return extent % size == 0; }))
    return;
  // As b steps down, rest steps up by sizes[second], so its remainder by
  // sizes[first] repeats every sizes[first] / gcd steps: none later divides
  // if none of those does (2^31 - 1 rows took half a billion steps for
  // sizes 2 and 4).
  for (size_t first = 0; first < sizes.size(); ++first)
    for (size_t second = first + 1; second < sizes.size(); ++second)
      for (int64_t
               b = extent / sizes[second],
               period = sizes[first] / std::gcd(sizes[first], sizes[second]);
           b > kMaxRepetitions && period > 0; --b, --period) {
        int64_t rest = extent - b * sizes[second];
        if (rest > 0 && rest % sizes[first] == 0) {
          addCombination(rest / sizes[first], sizes[first], b, sizes[second]);
          break;
        }
      }
}

MicrokernelChoice
SearchSpace::fallback(const std::vector<MicrokernelClass> &classes) const {
  // The best class's microkernel, shrunk to fit: parallel dimensions keep
  // their factor and get a masked partial last tile; reductions, which
  // cannot be partial, take the largest factor that divides them.
  MicrokernelChoice choice;
  choice.partial = true;
  choice.fallback = true;
  auto best = std::max_element(
      classes.begin(), classes.end(), [](const auto &a, const auto &b) {
        return a.bestPercentOfPeak < b.bestPercentOfPeak;
      });
  if (best == classes.end()) {
    choice.kernel.factors.assign(family_.unrolled.size(), 1);
  } else {
    choice.kernel = best->shape;
    const std::vector<int64_t> &sizes = best->combinationSizes;
    const int64_t extent = spec_.dims[spec_.dimId(family_.combinationDim)].size;
    auto fitting = std::find_if(sizes.rbegin(), sizes.rend(),
                                [&](int64_t size) { return size <= extent; });
    // The class's largest size that fits, else its smallest (cut to the
    // extent below); a class without sizes, malformed, gets 1.
    choice.kernel.factors[combinationIndex_] =
        fitting != sizes.rend() ? *fitting
                                : (sizes.empty() ? 1 : sizes.front());
  }
  for (size_t i = 0; i < familyDims_.size(); ++i) {
    int64_t &factor = choice.kernel.factors[i];
    const int64_t extent = spec_.dims[familyDims_[i]].size;
    if (family_.unrolled[i] == family_.vectorDim) {
      // Vectors may end in a masked tail, along a reduction too.
      factor = std::min(factor, ceilDiv(extent, vectorWidth_));
    } else if (spec_.isReduction(familyDims_[i])) {
      factor = largestDivisorAtMost(extent, factor);
    } else {
      factor = std::min(factor, extent);
    }
  }
  return choice;
}

scheme::Scheme SearchSpace::sample(std::mt19937_64 &random) const {
  return complete(pickUniform(choices_, random), random);
}

scheme::Scheme SearchSpace::complete(const MicrokernelChoice &choice,
                                     std::mt19937_64 &random) const {
  std::vector<int64_t> tile = tileOf(choice);
  std::vector<int64_t> remaining(spec_.dims.size());
  for (size_t d = 0; d < remaining.size(); ++d)
    remaining[d] = ceilDiv(spec_.dims[d].size, tile[d]);

  // The reuse loop, directly above the microkernel.
  std::vector<scheme::Atom> inner;
  const spec::DimId reuse = spec_.dimId(family_.reuseDim);
  std::vector<int64_t> reuseCounts;
  for (int64_t count : divisorsOf(remaining[reuse]))
    if (count == remaining[reuse] || count >= kMinReuseIterations)
      reuseCounts.push_back(count);
  int64_t reuseCount = pickUniform(reuseCounts, random);
  if (reuseCount > 1)
    inner.push_back(scheme::TAtom{reuseCount, family_.reuseDim});
  remaining[reuse] /= reuseCount;

  // Levels above, innermost first: a (dimension, factor) pair at a time,
  // the vectorized dimension's first where the family streams it.
  std::vector<scheme::Atom> levels;
  const spec::DimId vector = spec_.dimId(family_.vectorDim);
  while (true) {
    std::vector<std::pair<spec::DimId, int64_t>> pairs;
    for (size_t d = 0; d < remaining.size(); ++d)
      if (!std::ranges::count(batchDims_, static_cast<spec::DimId>(d)))
        for (int64_t factor : divisorsOf(remaining[d]))
          if (factor > 1)
            pairs.emplace_back(static_cast<spec::DimId>(d), factor);
    if (pairs.empty())
      break;
    if (family_.vectorLoopsInnermost && remaining[vector] > 1)
      std::erase_if(pairs, [&](const auto &pair) { return pair.first != vector; });
    auto [dim, factor] = pickUniform(pairs, random);
    levels.push_back(scheme::TAtom{factor, spec_.dims[dim].name});
    remaining[dim] /= factor;
  }
  std::reverse(levels.begin(), levels.end());
  if (choice.combination) {
    std::uniform_int_distribution<size_t> position(0, levels.size());
    levels.insert(levels.begin() + static_cast<std::ptrdiff_t>(position(random)),
                  *choice.combination);
  }
  for (auto batch = batchDims_.rbegin(); batch != batchDims_.rend(); ++batch)
    if (remaining[*batch] > 1)
      levels.insert(levels.begin(),
                    scheme::TAtom{remaining[*batch], spec_.dims[*batch].name});

  scheme::Scheme scheme;
  scheme.atoms = std::move(levels);
  scheme.atoms.insert(scheme.atoms.end(), inner.begin(), inner.end());
  maybePack(scheme.atoms, scheme.atoms.size() - inner.size(), tile, random);
  maybeParallelize(scheme.atoms, random);
  for (scheme::Atom &atom :
       choice.kernel.atoms(family_, choice.combination.has_value()))
    scheme.atoms.push_back(std::move(atom));
  std::get<scheme::VAtom>(scheme.atoms.back()).lanes = fixedLanes_;
  return scheme;
}

void SearchSpace::maybePack(std::vector<scheme::Atom> &atoms, size_t end,
                            const std::vector<int64_t> &kernelTile,
                            std::mt19937_64 &random) const {
  if (!packedTensor_)
    return;
  const bool mustPack = !transposingOrder_.empty();
  if (!mustPack && packBudgetBytes_ <= 0)
    return;
  const spec::Tensor &tensor = spec_.tensors[*packedTensor_];
  auto bytesOver = [&](const std::vector<int64_t> &tile) {
    return spec::elementSize(tensor.type) *
           scheme::tensorFootprint(spec_, *packedTensor_, tile);
  };
  // Weights that fit the budget whole stay cached from one use to the next:
  // a copy at every run would only cost. Constant weights are laid out
  // ahead for free, and their rows then lie contiguous rather than a whole
  // K apart, where a few L1 sets hold them all (K = 1024: 4 KB, one set):
  // on ResNet50-14 (1 MB of weights) a Pack took the tuned scheme from 172
  // to 182 GFLOP/s.
  std::vector<int64_t> whole;
  for (const spec::Dim &dim : spec_.dims)
    whole.push_back(dim.size);
  if (!mustPack && !packedForPadding_ && !tensor.constant &&
      bytesOver(whole) <= packBudgetBytes_)
    return;
  // Walking up from the microkernel: the tile of every dimension below the
  // current position, and whether a loop there iterates a dimension the
  // tensor does not use (then the copy is read more than once).
  std::vector<int64_t> extent = kernelTile;
  for (size_t d = 0; d < extent.size(); ++d)
    extent[d] = std::min(extent[d], spec_.dims[d].size);
  bool reused = false;
  auto reuses = [&](const std::string &dim) {
    return !tensor.uses(spec_.dimId(dim));
  };
  // A constant tensor's Pack costs nothing at run time (CodeGen/Prepack.h),
  // but its tiles must not vary: it goes above every Lambda over its
  // dimensions.
  size_t lowest = end;
  if (tensor.constant)
    for (size_t p = 0; p < atoms.size(); ++p)
      if (const auto *lambda = std::get_if<scheme::LambdaAtom>(&atoms[p]);
          lambda && !reuses(lambda->dim)) {
        lowest = std::min(lowest, p);
        break;
      }
  std::vector<size_t> positions;
  for (size_t p = atoms.size(); p-- > 0;) {
    if (const auto *t = std::get_if<scheme::TAtom>(&atoms[p])) {
      spec::DimId d = spec_.dimId(t->dim);
      extent[d] = std::min(extent[d] * t->count, spec_.dims[d].size);
      reused = reused || reuses(t->dim);
    } else if (const auto *lambda = std::get_if<scheme::LambdaAtom>(&atoms[p])) {
      reused = reused || reuses(lambda->dim);
    }
    // Atom p is the outermost loop below a Pack inserted at p. A copy for
    // the padding reads every element once wherever it is; higher, it
    // copies the rows two tiles share once.
    if (p <= lowest && (reused || packedForPadding_) &&
        bytesOver(extent) <= packBudgetBytes_)
      positions.push_back(p);
  }
  // A transposing copy must be somewhere: right above the reuse loop, where
  // its tile is smallest, when no position fits the budget.
  if (mustPack && positions.empty())
    positions.push_back(std::min(end, lowest));
  // A copy at every run pays off only sometimes: half the candidates try.
  if (positions.empty() || (!mustPack && !tensor.constant &&
                            std::bernoulli_distribution(0.5)(random)))
    return;
  size_t position = pickUniform(positions, random);
  atoms.insert(atoms.begin() + static_cast<std::ptrdiff_t>(position),
               scheme::PackAtom{tensor.name, transposingOrder_});
}

void SearchSpace::maybeParallelize(std::vector<scheme::Atom> &atoms,
                                   std::mt19937_64 &random) const {
  if (workers_ < 2 || !std::bernoulli_distribution(0.5)(random))
    return;
  // Loops over output dimensions only: the workers write distinct tiles.
  auto outputLoop = [&](size_t p) -> const scheme::TAtom * {
    const auto *t = std::get_if<scheme::TAtom>(&atoms[p]);
    return t && !spec_.isReduction(spec_.dimId(t->dim)) ? t : nullptr;
  };
  std::vector<size_t> loops;
  for (size_t p = 0; p < atoms.size(); ++p)
    if (const scheme::TAtom *t = outputLoop(p); t && t->count >= workers_)
      loops.push_back(p);
  // The outermost output loops next to each other, fused into one: enough
  // iterations for the workers where each loop alone has few (Tfused).
  size_t fusedBegin = 0;
  while (fusedBegin < atoms.size() && !outputLoop(fusedBegin))
    ++fusedBegin;
  size_t fusedEnd = fusedBegin;
  int64_t fusedIterations = 1;
  for (; fusedEnd < atoms.size() && outputLoop(fusedEnd); ++fusedEnd)
    fusedIterations *= outputLoop(fusedEnd)->count;
  bool canFuse = fusedEnd - fusedBegin >= 2 && fusedIterations >= workers_;
  if (loops.empty() && !canFuse)
    return;
  // Where the workers share the nest is drawn among three choices, since
  // none is always best and measuring them is what the tuner is for: the
  // outermost loop (one fork and join, shares perhaps uneven), the
  // outermost that the workers divide evenly, and the fused loops.
  std::vector<size_t> choices;
  if (!loops.empty()) {
    choices.push_back(loops.front());
    auto divided = std::find_if(loops.begin(), loops.end(), [&](size_t p) {
      return std::get<scheme::TAtom>(atoms[p]).count % workers_ == 0;
    });
    if (divided != loops.end() && *divided != loops.front())
      choices.push_back(*divided);
  }
  const size_t kFuse = atoms.size();
  if (canFuse)
    choices.push_back(kFuse);
  size_t choice = pickUniform(choices, random);
  if (choice != kFuse) {
    const auto loop = std::get<scheme::TAtom>(atoms[choice]);
    atoms[choice] = scheme::TparAtom{loop.count, loop.dim};
    return;
  }
  scheme::TfusedAtom fused;
  for (size_t p = fusedBegin; p < fusedEnd; ++p)
    fused.loops.emplace_back(outputLoop(p)->dim, outputLoop(p)->count);
  atoms.erase(atoms.begin() + static_cast<std::ptrdiff_t>(fusedBegin) + 1,
              atoms.begin() + static_cast<std::ptrdiff_t>(fusedEnd));
  atoms[fusedBegin] = std::move(fused);
}

} // namespace ttile::search
