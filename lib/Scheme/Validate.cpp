//===- Scheme/Validate.cpp - Legality of a scheme for a problem -----------===//
//
// The rules of Validate.h, each in its own method. Placement rules (where an
// atom may appear) are read off the atom list; coverage and the register
// tile size are read off the tile tree, which already knows what every atom
// covers. Placement is checked first because a misplaced atom usually also
// breaks coverage, and the placement message is the one that helps.
//
//===----------------------------------------------------------------------===//

#include "Scheme/Validate.h"

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttile::scheme {
namespace {

/// Most points an unrolled basic block may have (Validate.h, rule "size").
constexpr int64_t MaxRegisterTilePoints = 1024;

template <class A> bool is(const Atom &atom) {
  return std::holds_alternative<A>(atom);
}

class Validator {
public:
  Validator(const Scheme &scheme, const spec::Spec &spec, const TileTree &tree)
      : scheme_(scheme), spec_(spec), tree_(tree) {}

  void run() const {
    checkVector();
    checkPack();
    checkParallel();
    checkHoist();
    checkUnroll();
    checkR();
    checkLambdaFactors();
    checkCoverage();
    checkRegisterTileSize();
  }

private:
  //===--- Helpers --------------------------------------------------------===//

  int numAtoms() const { return static_cast<int>(scheme_.atoms.size()); }
  const Atom &atomAt(int index) const { return scheme_.atoms[index]; }

  /// "atom 3 'T(5,h)'", the way every message names an atom.
  std::string describe(int atom) const {
    return "atom " + std::to_string(atom + 1) + " '" + printAtom(atomAt(atom)) +
           "'";
  }

  [[noreturn]] void fail(int atom, const std::string &rule,
                         const std::string &message) const {
    throw Error(describe(atom) + ": " + rule + ": " + message,
                ErrorCode::InvalidScheme);
  }

  DimId dimOf(const std::string &name) const { return spec_.dimId(name); }
  const std::string &dimName(DimId d) const { return spec_.dims[d].name; }

  bool indexesOutput(DimId d) const { return spec_.output().uses(d); }
  /// Whether d is a reduction that the V atom runs along.
  bool isSummedVector(DimId d) const {
    std::optional<int> v = findAtom<VAtom>(0, numAtoms());
    return v && !indexesOutput(d) &&
           dimOf(std::get<VAtom>(atomAt(*v)).dim) == d;
  }

  /// The dimensions an atom iterates along; none for Hoist and Pack.
  std::vector<DimId> dimsOf(const Atom &atom) const {
    return std::visit(
        Overloaded{
            [&](const RAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const TAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const UAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const VAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const LambdaAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const HoistAtom &) { return std::vector<DimId>{}; },
            [&](const PackAtom &) { return std::vector<DimId>{}; },
            [&](const TparAtom &a) { return std::vector{dimOf(a.dim)}; },
            [&](const TfusedAtom &a) {
              std::vector<DimId> dims;
              for (const auto &loop : a.loops)
                dims.push_back(dimOf(loop.first));
              return dims;
            },
        },
        atom);
  }

  bool iterates(const Atom &atom, DimId d) const {
    std::vector<DimId> dims = dimsOf(atom);
    return std::find(dims.begin(), dims.end(), d) != dims.end();
  }

  /// Whether the atom becomes a loop in the generated code (U and V become
  /// straight-line code; Hoist and Pack iterate nothing).
  static bool isLoop(const Atom &atom) {
    return is<RAtom>(atom) || is<TAtom>(atom) || is<LambdaAtom>(atom) ||
           is<TparAtom>(atom) || is<TfusedAtom>(atom);
  }

  static bool isParallel(const Atom &atom) {
    return is<TparAtom>(atom) || is<TfusedAtom>(atom);
  }

  /// The first atom in [from, to) satisfying `pred`.
  template <class Pred>
  std::optional<int> findAtom(int from, int to, Pred pred) const {
    for (int i = from; i < to; ++i)
      if (pred(atomAt(i)))
        return i;
    return std::nullopt;
  }
  template <class A> std::optional<int> findAtom(int from, int to) const {
    return findAtom(from, to, [](const Atom &atom) { return is<A>(atom); });
  }

  //===--- Rules ----------------------------------------------------------===//

  void checkVector() const {
    std::optional<int> vector = findAtom<VAtom>(0, numAtoms());
    if (!vector)
      return;
    const int v = *vector;
    if (auto other = findAtom<VAtom>(v + 1, numAtoms()))
      fail(*other, "vector",
           "at most one V per scheme, and " + describe(v) + " is another");
    if (v != numAtoms() - 1)
      fail(v, "vector",
           "V must be the last atom, but " + describe(v + 1) + " follows it");
    const DimId d = dimOf(std::get<VAtom>(atomAt(v)).dim);
    const std::string &name = dimName(d);
    // Along a reduction, the lanes hold partial sums of each output
    // element, added together at its store (CodeGen/RegisterTile.h); every
    // read along it is then masked past its end, which a sliding window's
    // padding would also need (CodeGen/ZeroPadding.h), so the reduction
    // must index its tensors' contiguous axes alone: a dot product.
    const bool summed = !indexesOutput(d);
    for (const spec::Tensor &tensor : spec_.tensors) {
      std::optional<int> axis = tensor.axisOf(d);
      if (!axis)
        continue;
      auto [last, packedBy] = contiguousAxisAtV(tensor);
      const spec::TensorAxis &contiguous = tensor.axes[last];
      std::string layout = packedBy ? " (as " + describe(*packedBy) + " lays it out)" : "";
      if (*axis != last)
        fail(v, "vector",
             "tensor " + tensor.name + " has " + name + " in its axis '" +
                 tensor.axes[*axis].name + "', not in its contiguous axis '" +
                 contiguous.name + "'" + layout);
      if (summed &&
          (contiguous.index.terms.size() != 1 ||
           contiguous.index.constant != 0 || contiguous.index.coeffOf(d) != 1))
        fail(v, "vector",
             name + " is a reduction (it does not index the output " +
                 spec_.output().name +
                 "), and a V along one needs it alone "
                 "in each tensor's contiguous axis, but tensor " +
                 tensor.name + " indexes '" + contiguous.name + "' otherwise");
      // Along a zero-padded axis, vector loads mask the lanes in the
      // padding (CodeGen/ZeroPadding.h); a packed copy holds the zeros.
      // Inputs may be read at a stride of 2 (a strided planar image): the
      // loads span twice the lanes (CodeGen/TensorAccess.h, loadVector).
      const bool input = tensor.role == spec::TensorRole::Input;
      const int64_t coeff = contiguous.index.coeffOf(d);
      if (coeff > (input ? 2 : 1))
        fail(v, "vector",
             "tensor " + tensor.name + " indexes its contiguous axis with " +
                 std::to_string(coeff) + "*" + name + ", but vector " +
                 (input ? "loads take coefficient 1 or 2"
                        : "stores and added tensors take coefficient 1"));
    }
  }

  /// The axis of `tensor` that is contiguous where V reads it: the last one
  /// listed by the innermost Pack of the tensor, else its own last axis.
  /// Packing with a permutation is how a dimension that is not contiguous in
  /// the user's layout becomes vectorizable (thesis 3.6).
  std::pair<int, std::optional<int>> contiguousAxisAtV(
      const spec::Tensor &tensor) const {
    int last = static_cast<int>(tensor.axes.size()) - 1;
    std::optional<int> packedBy;
    for (int p = 0; p < numAtoms(); ++p) {
      const auto *pack = std::get_if<PackAtom>(&atomAt(p));
      if (!pack || pack->tensor != tensor.name)
        continue;
      packedBy = p;
      if (pack->permutation.empty())
        last = static_cast<int>(tensor.axes.size()) - 1;
      else
        for (int a = 0; a <= static_cast<int>(tensor.axes.size()) - 1; ++a)
          if (tensor.axes[a].name == pack->permutation.back())
            last = a;
    }
    return {last, packedBy};
  }

  void checkPack() const {
    for (int p = 0; p < numAtoms(); ++p) {
      const auto *pack = std::get_if<PackAtom>(&atomAt(p));
      if (!pack)
        continue;
      const spec::Tensor &tensor =
          spec_.tensors[*spec_.findTensor(pack->tensor)];
      if (tensor.role != spec::TensorRole::Input)
        fail(p, "pack",
             tensor.name + " is " +
                 (tensor.role == spec::TensorRole::Output ? "the output"
                                                          : "the bias") +
                 "; only input tensors can be packed");
      auto blocker = findAtom(0, p, [](const Atom &atom) {
        return is<HoistAtom>(atom) || is<UAtom>(atom);
      });
      if (blocker)
        fail(p, "pack",
             "a Pack cannot be below " + describe(*blocker) +
                 "; place it above every Hoist and U");
      // A constant tensor is laid out tile by tile ahead of the runs, each
      // tile at a place its origin names (CodeGen/Prepack.h): the origins
      // must be multiples of the tile, which a Lambda above breaks.
      if (!tensor.constant)
        continue;
      auto lambda = findAtom(0, p, [&](const Atom &atom) {
        const auto *l = std::get_if<LambdaAtom>(&atom);
        return l && tensor.uses(dimOf(l->dim));
      });
      if (lambda)
        fail(p, "pack",
             tensor.name + " is constant, laid out ahead in tiles of one "
                 "size, and " + describe(*lambda) +
                 " above varies the tile; place the Pack above it");
    }
  }

  void checkParallel() const {
    std::optional<int> first = findAtom(0, numAtoms(), isParallel);
    if (!first)
      return;
    const int par = *first;
    if (auto other = findAtom(par + 1, numAtoms(), isParallel))
      fail(*other, "parallel",
           "at most one Tpar or Tfused per scheme, and " + describe(par) +
               " is another");
    for (DimId d : dimsOf(atomAt(par)))
      if (!indexesOutput(d))
        fail(par, "parallel",
             dimName(d) + " is a reduction (it does not index the output " +
                 spec_.output().name +
                 "), so its iterations cannot run in parallel");
    if (auto hoist = findAtom<HoistAtom>(0, par))
      fail(par, "parallel",
           "a parallel loop cannot be below " + describe(*hoist) +
               ", whose accumulators are private to one thread");
  }

  void checkHoist() const {
    std::optional<int> first = findAtom<HoistAtom>(0, numAtoms());
    if (!first)
      return;
    const int h = *first;
    if (auto other = findAtom<HoistAtom>(h + 1, numAtoms()))
      fail(*other, "hoist",
           "at most one Hoist per scheme, and " + describe(h) + " is another");
    std::vector<DimId> hoisted;
    for (const std::string &name : std::get<HoistAtom>(atomAt(h)).dims) {
      DimId d = dimOf(name);
      if (indexesOutput(d))
        fail(h, "hoist",
             name + " indexes the output " + spec_.output().name +
                 "; only reductions, absent from the output, can be hoisted");
      hoisted.push_back(d);
    }
    for (int i = h + 1; i < numAtoms(); ++i) {
      if (!isLoop(atomAt(i)))
        continue;
      for (DimId d : dimsOf(atomAt(i)))
        if (std::find(hoisted.begin(), hoisted.end(), d) == hoisted.end())
          fail(i, "hoist",
               "every loop below " + describe(h) +
                   " must iterate a hoisted dimension, but this one "
                   "iterates " +
                   dimName(d));
    }
  }

  void checkUnroll() const {
    std::optional<int> first = findAtom<UAtom>(0, numAtoms());
    if (!first)
      return;
    auto misplaced = findAtom(*first + 1, numAtoms(), [](const Atom &atom) {
      return !is<UAtom>(atom) && !is<VAtom>(atom);
    });
    if (misplaced)
      fail(*misplaced, "unroll",
           "only U and V may follow the first U, " + describe(*first) +
               ", because the U atoms form the unrolled register tile");
  }

  void checkR() const {
    for (int r = 0; r < numAtoms(); ++r) {
      const auto *atom = std::get_if<RAtom>(&atomAt(r));
      if (!atom)
        continue;
      const DimId d = dimOf(atom->dim);
      auto above =
          findAtom(0, r, [&](const Atom &other) { return iterates(other, d); });
      if (!above)
        continue;
      if (is<RAtom>(atomAt(*above)))
        fail(r, "R",
             "R(" + atom->dim + ") may appear only once, and " +
                 describe(*above) + " is another");
      fail(r, "R",
           "R(" + atom->dim + ") must be above every other atom on " +
               atom->dim + ", but " + describe(*above) + " is above it");
    }
  }

  /// Every Lambda's factors must reach a U(lambda,d) before another Lambda on
  /// d rebinds them; otherwise its parts would all be the same nest.
  void checkLambdaFactors() const {
    for (int l = 0; l < numAtoms(); ++l) {
      const auto *lambda = std::get_if<LambdaAtom>(&atomAt(l));
      if (!lambda)
        continue;
      auto user = findAtom(l + 1, numAtoms(), [&](const Atom &atom) {
        const auto *unroll = std::get_if<UAtom>(&atom);
        const auto *rebind = std::get_if<LambdaAtom>(&atom);
        return (unroll && unroll->parametric && unroll->dim == lambda->dim) ||
               (rebind && rebind->dim == lambda->dim);
      });
      if (!user || !is<UAtom>(atomAt(*user)))
        fail(l, "lambda",
             "no U(lambda," + lambda->dim +
                 ") below this Lambda instantiates its factors");
    }
  }

  /// The Sequence node of the Lambda at `atom`, the first one in the tree.
  static const TileNode *findSequence(const TileNode &node, int atom) {
    if (node.kind == TileNode::Kind::Sequence && node.atom == atom)
      return &node;
    for (const TileNode &child : node.children)
      if (const TileNode *found = findSequence(child, atom))
        return found;
    return nullptr;
  }

  /// A Lambda on a mis-covered dimension: its parts do not cover their
  /// enclosing tile exactly. Says what the parts add up to.
  [[noreturn]] void failLambdaCoverage(int l, DimId d) const {
    const TileNode &sequence = *findSequence(tree_.root, l);
    std::string sum;
    for (const TileNode &part : sequence.children)
      sum += (sum.empty() ? "" : "+") + std::to_string(part.loops[0].second) +
             "*" + std::to_string(part.child().extent[d]);
    const int64_t covered = sequence.extent[d];
    const int64_t total = tree_.root.extent[d];
    std::string message = "Lambda covers " + sum + " = " +
                          std::to_string(covered) + " along " + dimName(d);
    if (total != covered)
      message += ", " + std::to_string(total) + " with the " +
                 std::to_string(total / covered) +
                 " iterations of the loops above";
    fail(l, "lambda",
         message + ", but the size of " + dimName(d) + " is " +
             std::to_string(spec_.dims[d].size) +
             "; the parts must cover their enclosing tile exactly");
  }

  void checkCoverage() const {
    for (DimId d = 0; d < static_cast<DimId>(spec_.dims.size()); ++d) {
      const std::string &name = dimName(d);
      const int64_t size = spec_.dims[d].size;
      const int64_t covered = tree_.root.extent[d];
      auto outermost = findAtom(
          0, numAtoms(), [&](const Atom &atom) { return iterates(atom, d); });
      if (!outermost) {
        if (size == 1)
          continue;
        throw Error("dimension " + name + " (size " + std::to_string(size) +
                        ") is not covered by any atom; add R(" + name +
                        ") or T(" + std::to_string(size) + "," + name + ")",
                    ErrorCode::InvalidScheme);
      }
      if (covered == size)
        continue;
      auto lambda = findAtom(0, numAtoms(), [&](const Atom &atom) {
        const auto *l = std::get_if<LambdaAtom>(&atom);
        return l && l->dim == name;
      });
      if (lambda)
        failLambdaCoverage(*lambda, d);
      const std::string mismatch = "dimension " + name + ": the tiles cover " +
                                   std::to_string(covered) +
                                   " but the size is " + std::to_string(size);
      if (covered < size)
        fail(*outermost, "coverage", mismatch);
      if (!indexesOutput(d) && !isSummedVector(d))
        fail(*outermost, "coverage",
             mismatch + "; " + name +
                 " is a reduction, and only dimensions of the output and a "
                 "reduction along V (whose lanes past its end read zeros) "
                 "may have a partial tile");
      const int64_t registerTile = tree_.registerTile[d];
      if (covered - size >= registerTile)
        fail(*outermost, "partial",
             mismatch +
                 "; a partial tile may exceed the size by less than "
                 "the register tile (" +
                 std::to_string(registerTile) + " along " + name +
                 "), not by " + std::to_string(covered - size));
    }
  }

  /// The register tile differs between the parts of a Lambda, so every path
  /// of the tree is checked, each at its outermost U or V.
  void checkRegisterTileSize(const TileNode &node) const {
    const bool unrolled = node.kind == TileNode::Kind::Loop &&
                          (node.loopKind == LoopKind::Unrolled ||
                           node.loopKind == LoopKind::Vector);
    if (!unrolled) {
      for (const TileNode &child : node.children)
        checkRegisterTileSize(child);
      return;
    }
    // Lanes are free: a V multiplies the work of each point, not the code.
    std::optional<DimId> vector;
    if (auto v = findAtom<VAtom>(0, numAtoms()))
      vector = dimOf(std::get<VAtom>(atomAt(*v)).dim);
    int64_t points = 1;
    std::string shape;
    for (DimId d = 0; d < static_cast<DimId>(node.extent.size()); ++d) {
      int64_t copies = node.extent[d];
      if (d == vector)
        copies = (copies + tree_.vectorWidth - 1) / tree_.vectorWidth;
      // Saturate: a huge U must be reported, not wrap around to a small tile.
      if (__builtin_mul_overflow(points, copies, &points))
        points = INT64_MAX;
      if (copies > 1)
        shape += (shape.empty() ? "" : " x ") + dimName(d) + "=" +
                 std::to_string(copies) + (d == vector ? " vectors" : "");
    }
    if (points > MaxRegisterTilePoints)
      fail(node.atom, "size",
           "the register tile " + shape + " has " + std::to_string(points) +
               " points, more than the limit of " +
               std::to_string(MaxRegisterTilePoints));
  }
  void checkRegisterTileSize() const { checkRegisterTileSize(tree_.root); }

  const Scheme &scheme_;
  const spec::Spec &spec_;
  const TileTree &tree_;
};

} // namespace

TileTree validateScheme(const Scheme &scheme, const spec::Spec &spec,
                        int vectorWidth) {
  TileTree tree = buildTileTree(scheme, spec, vectorWidth);
  Validator(scheme, spec, tree).run();
  return tree;
}

} // namespace ttile::scheme
