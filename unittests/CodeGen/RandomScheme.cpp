//===- unittests/CodeGen/RandomScheme.cpp - Random legal schemes ----------===//

#include "RandomScheme.h"

#include "Spec/SpecBuilders.h"

#include <algorithm>
#include <map>
#include <optional>

namespace ttile::testing {
namespace {

using scheme::Atom;
using spec::DimId;

int64_t uniform(std::mt19937_64 &random, int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(random);
}

bool chance(std::mt19937_64 &random, double probability) {
  return std::bernoulli_distribution(probability)(random);
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> result;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      result.push_back(d);
  return result;
}

template <typename T> const T &pick(std::mt19937_64 &random, const std::vector<T> &items) {
  return items[static_cast<size_t>(uniform(random, 0, static_cast<int64_t>(items.size()) - 1))];
}

/// A dimension V may vectorize: it indexes the output, and is the last axis,
/// with coefficient 1, of every tensor it indexes.
bool vectorizable(const spec::Spec &spec, DimId d) {
  if (!spec.output().uses(d))
    return false;
  for (const spec::Tensor &tensor : spec.tensors) {
    if (!tensor.uses(d))
      continue;
    const spec::AffineExpr &last = tensor.axes.back().index;
    if (last.coeffOf(d) != 1)
      return false;
    for (size_t a = 0; a + 1 < tensor.axes.size(); ++a)
      if (tensor.axes[a].index.uses(d))
        return false;
  }
  return true;
}

/// a*x1 + b*x2 == size with 1 <= x1 < x2 <= 6 and a, b >= 1, if any.
std::optional<scheme::LambdaAtom> lambdaFor(const std::string &dim, int64_t size,
                                            std::mt19937_64 &random) {
  std::vector<scheme::LambdaAtom> options;
  for (int64_t x1 = 1; x1 <= 6; ++x1)
    for (int64_t x2 = x1 + 1; x2 <= 6; ++x2)
      for (int64_t a = 1; a * x1 < size; ++a)
        if ((size - a * x1) % x2 == 0)
          options.push_back({dim, {{a, x1}, {(size - a * x1) / x2, x2}}});
  if (options.empty())
    return std::nullopt;
  return pick(random, options);
}

} // namespace

spec::Spec randomProblem(std::mt19937_64 &random) {
  switch (uniform(random, 0, 2)) {
  case 0: {
    spec::ConvShape shape;
    shape.N = uniform(random, 1, 2);
    shape.K = uniform(random, 1, 40);
    shape.C = uniform(random, 1, 8);
    shape.outH = uniform(random, 1, 9);
    shape.outW = uniform(random, 1, 6);
    shape.R = uniform(random, 1, 3);
    shape.S = uniform(random, 1, 3);
    shape.strideH = uniform(random, 1, 2);
    shape.dilationW = uniform(random, 1, 2);
    // Zero padding, read by the kernel, sometimes wider than the window,
    // on an input of any size: what the window reaches beyond it is zero.
    if (chance(random, 0.5)) {
      for (int64_t *pad : {&shape.padTop, &shape.padLeft, &shape.padBottom,
                           &shape.padRight})
        *pad = uniform(random, 0, 3);
      shape.inputH = uniform(random, 1, 12);
      shape.inputW = uniform(random, 1, 8);
    }
    // Grouped, or depthwise (one channel per group).
    switch (uniform(random, 0, 3)) {
    case 0:
      shape.groups = uniform(random, 2, 3);
      shape.C *= shape.groups;
      shape.K = shape.groups * uniform(random, 1, 12);
      break;
    case 1:
      shape.groups = shape.C = shape.K;
      // In NCHW, half the time: the planar spec vectorizes w, which its
      // image may read at a stride of 2.
      shape.planar = chance(random, 0.5);
      if (shape.planar)
        shape.strideW = uniform(random, 1, 2);
      break;
    default:
      break;
    }
    shape.bias = chance(random, 0.5);
    if (chance(random, 0.5))
      shape.epilogue.activation = spec::Activation::ReLU;
    return spec::conv2d(shape);
  }
  case 1:
    return spec::matmul(uniform(random, 1, 40), uniform(random, 1, 70),
                        uniform(random, 1, 24));
  default: {
    std::map<char, int64_t> sizes;
    for (char letter : std::string("abcd"))
      sizes[letter] = uniform(random, 1, letter == 'd' ? 40 : 6);
    static const std::vector<std::string> einsums = {
        "abc,cbd->ad", "ab,bd->ad", "acb,bd->acd", "ad,bd->abd"};
    return spec::contraction(pick(random, einsums), sizes);
  }
  }
}

spec::Spec withRandomEpilogue(spec::Spec spec, uint64_t seed) {
  std::mt19937_64 random(seed ^ 0xe1f09e);
  spec::Epilogue &epilogue = spec.epilogue;
  epilogue.activation = static_cast<spec::Activation>(
      uniform(random, 0, static_cast<int64_t>(spec::Activation::Tanh)));
  if (epilogue.usesAlpha())
    epilogue.alpha = std::uniform_real_distribution<float>(-1, 1)(random);
  if (epilogue.usesBeta())
    epilogue.beta = epilogue.alpha + std::uniform_real_distribution<float>(
                                         0, 2)(random);
  if (chance(random, 0.5))
    spec.addResidual();
  spec.verify();
  return spec;
}

scheme::Scheme randomScheme(const spec::Spec &spec, int vectorWidth,
                            std::mt19937_64 &random) {
  const int dims = static_cast<int>(spec.dims.size());
  auto name = [&](DimId d) { return spec.dims[d].name; };
  // What the atoms above the register tile still have to cover, per dim.
  std::vector<int64_t> remaining(dims);
  for (DimId d = 0; d < dims; ++d)
    remaining[d] = spec.dims[d].size;

  std::vector<Atom> tile; // The register tile, outermost first.
  std::vector<DimId> candidates;
  for (DimId d = 0; d < dims; ++d)
    if (vectorizable(spec, d))
      candidates.push_back(d);
  std::optional<DimId> vector;
  if (!candidates.empty() && chance(random, 0.85)) {
    vector = pick(random, candidates);
    int64_t vectors = (spec.dims[*vector].size + vectorWidth - 1) / vectorWidth;
    int64_t unroll = std::min<int64_t>(vectors, uniform(random, 1, 2));
    remaining[*vector] = (vectors + unroll - 1) / unroll;
    if (unroll > 1)
      tile.push_back(scheme::UAtom{unroll, name(*vector), false});
    tile.push_back(scheme::VAtom{name(*vector)});
  }

  // Up to two unrolled dimensions, one of them perhaps a lambda; parallel
  // ones may be partial, reductions must divide.
  std::optional<scheme::LambdaAtom> lambda;
  std::vector<DimId> order(dims);
  for (DimId d = 0; d < dims; ++d)
    order[d] = d;
  std::shuffle(order.begin(), order.end(), random);
  int unrolled = 0;
  for (DimId d : order) {
    if (d == vector || spec.dims[d].size == 1 || unrolled == 2)
      continue;
    int64_t size = spec.dims[d].size;
    if (!lambda && chance(random, 0.25)) {
      if ((lambda = lambdaFor(name(d), size, random))) {
        tile.insert(tile.begin(), scheme::UAtom{0, name(d), true});
        remaining[d] = 1;
        ++unrolled;
        continue;
      }
    }
    if (!chance(random, 0.5))
      continue;
    int64_t factor;
    if (!spec.isReduction(d) && chance(random, 0.4)) {
      factor = uniform(random, 2, std::min<int64_t>(size + 1, 8));
      remaining[d] = (size + factor - 1) / factor; // Perhaps partial.
    } else {
      std::vector<int64_t> options = divisors(size);
      options.erase(std::remove_if(options.begin(), options.end(),
                                   [](int64_t v) { return v > 8; }),
                    options.end());
      factor = pick(random, options);
      remaining[d] = size / factor;
    }
    tile.insert(tile.begin(), scheme::UAtom{factor, name(d), false});
    ++unrolled;
  }

  // Tile loops: each remaining extent split into one or two factors, in a
  // random order, the outermost of a dimension sometimes an R.
  std::vector<Atom> loops;
  for (DimId d = 0; d < dims; ++d) {
    if (remaining[d] == 1)
      continue;
    int64_t inner = pick(random, divisors(remaining[d]));
    if (inner != remaining[d] && inner != 1 && chance(random, 0.5)) {
      loops.push_back(scheme::TAtom{inner, name(d)});
      loops.push_back(scheme::TAtom{remaining[d] / inner, name(d)});
    } else {
      loops.push_back(scheme::TAtom{remaining[d], name(d)});
    }
  }
  std::shuffle(loops.begin(), loops.end(), random);
  // Keep, per dimension, the atom order: the first one listed is outermost;
  // R may replace it.
  std::map<std::string, bool> seen;
  for (Atom &atom : loops) {
    std::string dim = std::get<scheme::TAtom>(atom).dim;
    if (!seen[dim] && chance(random, 0.2))
      atom = scheme::RAtom{dim};
    seen[dim] = true;
  }

  // Reductions directly above the tile are what a Hoist spans; keep them
  // below any Lambda, Pack or parallel loop.
  size_t reductionRun = loops.size();
  while (reductionRun > 0) {
    const Atom &atom = loops[reductionRun - 1];
    const std::string &dim = std::holds_alternative<scheme::TAtom>(atom)
                                 ? std::get<scheme::TAtom>(atom).dim
                                 : std::get<scheme::RAtom>(atom).dim;
    DimId d = spec.dimId(dim);
    if (!spec.isReduction(d) || spec.output().uses(d))
      break;
    --reductionRun;
  }
  auto insertAbove = [&](Atom atom) {
    auto position = uniform(random, 0, static_cast<int64_t>(reductionRun));
    loops.insert(loops.begin() + position, std::move(atom));
    ++reductionRun;
  };
  if (lambda)
    insertAbove(*lambda);
  if (chance(random, 0.3)) {
    std::vector<int> inputs = spec.inputIndices();
    const spec::Tensor &tensor = spec.tensors[pick(random, inputs)];
    scheme::PackAtom pack{tensor.name, {}};
    if (chance(random, 0.4) && !(vector && tensor.uses(*vector))) {
      for (const spec::TensorAxis &axis : tensor.axes)
        pack.permutation.push_back(axis.name);
      std::shuffle(pack.permutation.begin(), pack.permutation.end(), random);
    }
    insertAbove(pack);
  }
  auto parallelT = [&](size_t i) -> const scheme::TAtom * {
    const auto *t = i < reductionRun ? std::get_if<scheme::TAtom>(&loops[i])
                                     : nullptr;
    return t && !spec.isReduction(spec.dimId(t->dim)) ? t : nullptr;
  };
  if (chance(random, 0.2)) {
    // The outermost T on a parallel dimension becomes a Tpar.
    for (size_t i = 0; i < reductionRun; ++i)
      if (const scheme::TAtom *t = parallelT(i)) {
        loops[i] = scheme::TparAtom{t->count, t->dim};
        break;
      }
  } else if (chance(random, 0.15)) {
    // The outermost run of T on parallel dimensions, of one dimension or
    // several, becomes a Tfused.
    size_t first = 0;
    while (first < reductionRun && !parallelT(first))
      ++first;
    scheme::TfusedAtom fused;
    size_t end = first;
    for (; parallelT(end); ++end)
      fused.loops.emplace_back(parallelT(end)->dim, parallelT(end)->count);
    if (!fused.loops.empty()) {
      loops.erase(loops.begin() + static_cast<int64_t>(first) + 1,
                  loops.begin() + static_cast<int64_t>(end));
      loops[first] = std::move(fused);
      reductionRun -= end - first - 1;
    }
  }
  if (reductionRun < loops.size() && chance(random, 0.3)) {
    scheme::HoistAtom hoist;
    for (size_t i = reductionRun; i < loops.size(); ++i) {
      const Atom &atom = loops[i];
      std::string dim = std::holds_alternative<scheme::TAtom>(atom)
                            ? std::get<scheme::TAtom>(atom).dim
                            : std::get<scheme::RAtom>(atom).dim;
      if (std::find(hoist.dims.begin(), hoist.dims.end(), dim) == hoist.dims.end())
        hoist.dims.push_back(dim);
    }
    loops.insert(loops.begin() + static_cast<int64_t>(reductionRun), hoist);
  }

  scheme::Scheme scheme;
  scheme.atoms = std::move(loops);
  scheme.atoms.insert(scheme.atoms.end(), tile.begin(), tile.end());
  return scheme;
}

} // namespace ttile::testing
