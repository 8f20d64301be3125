//===- Search/SearchSpace.h - The structured space of a problem -*- C++ -*-===//
//
// The online stage's space (paper Fig. 7), for one problem:
//
//  1. the microkernels of the offline classes whose sizes divide the
//     problem, and the combinations a*x1 + b*x2 of two microkernels of one
//     class along the combination dimension (h) that divide its size, with
//     a, b <= 4, and, where no size of the class divides it, with as many
//     x2 as cover it all; the vectorized dimension alone may end in a
//     masked tail;
//  2. above a microkernel, the reuse loop (c) first, over all of c or at
//     least 32 iterations of it;
//  3. then, level by level, a (dimension, factor) pair drawn uniformly among
//     the divisors of what is left to cover, until everything is covered;
//     for a family whose vectorized dimension is streamed (depthwise), its
//     pairs first, so that its loops sit below every other;
//  4. a combination's Lambda placed at any level above the reuse loop;
//     above all, one loop over each batch dimension (one the output and
//     every input use: a batched matmul's items), which carries no reuse.
//     Drawn with the others, the 13 factors of 8192 items crowded the
//     levels, and loops over the rows of an item outside the items' loop
//     read each item in several passes: the best of 200 such candidates of
//     8192 products of 72x26 by 26x72 ran at 198 GFLOP/s on two Zen 5
//     threads, the items' loop at the top with the same microkernel at
//     254;
//  5. where the weights (the input indexed by the vectorized dimension and
//     not by the combination one) exceed the pack budget, for half the
//     candidates a Pack of them at a level above the reuse loop where its
//     tile fits the budget and a loop below reuses it: a contiguous,
//     aligned copy instead of rows a whole K apart, which for large K
//     conflict in the caches and defeat the prefetchers. Constant weights
//     (Spec.h) are packed in every candidate, whatever their size, above
//     any Lambda over their dimensions: laid out ahead, their Pack costs
//     nothing at run time;
//  6. with several workers (the thread pool's, TTILE_NUM_THREADS), for
//     half the candidates a parallel loop (thesis 5.6), drawn among: a Tpar
//     of the outermost loop over an output dimension with at least as many
//     iterations as workers, a Tpar of the outermost one whose count the
//     workers divide, and a Tfused of the outermost output loops next to
//     each other. The other half stay serial, for the layers too small to
//     share; the model (DataMovementModel.h) ranks them below.
//
// Sampling follows paper 6.1: draw a microkernel or combination uniformly,
// then complete it at random. Where no class divides the problem, because
// the problem is smaller than their microkernels (13 columns, one vector,
// where every class has two; 13 reductions where they unroll 2), the
// classes serve cut to it, each factor to what divides the problem (the
// vectors to those it has), their combination sizes drawn as before. When
// nothing divides even so (a prime size below the class range), the
// fallback uses the best microkernel that fits, with masked partial tiles
// (thesis 5.3.1): there is always a candidate.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_SEARCHSPACE_H
#define TTILE_SEARCH_SEARCHSPACE_H

#include "Scheme/Scheme.h"
#include "Search/Microkernel.h"
#include "Spec/Spec.h"

#include <optional>
#include <random>
#include <vector>

namespace ttile::search {

/// A microkernel, or two of one class combined along the combination
/// dimension: `repetitions[i]` copies of size `sizes[i]`.
struct MicrokernelChoice {
  Microkernel kernel; ///< With the first size along the combination dim.
  std::optional<scheme::LambdaAtom> combination;
  /// Covers some dimension in excess, with masked partial tiles: the
  /// vectorized one's tail, or any parallel one in the fallback.
  bool partial = false;
  bool fallback = false; ///< Nothing divided the problem.

  std::string str(const MicrokernelFamily &family) const;
};

class SearchSpace {
public:
  /// The space of `spec` built from `classes` of `family`. Throws
  /// ttile::Error when the spec is not of the family's shape (a dimension of
  /// the family is missing).
  /// `packBudgetBytes` bounds the tile a Pack copies (half the L2 keeps it
  /// cached while it is reused); 0 draws no Pack.
  /// `workers` run a parallel loop (1: candidates are serial).
  /// `fullRateLanes` (HostInfo::fullRateLanes; 0: vectorWidth) narrows the
  /// vectors where that leaves fewer lanes idle: the candidates then end in
  /// V(d,lanes) (scheme::searchLanes).
  SearchSpace(const spec::Spec &spec, const MicrokernelFamily &family,
              std::vector<MicrokernelClass> classes, int vectorWidth,
              int64_t packBudgetBytes = 0, int workers = 1,
              int fullRateLanes = 0);

  const spec::Spec &spec() const { return spec_; }
  const MicrokernelFamily &family() const { return family_; }
  int workers() const { return workers_; }
  /// Lanes of its vectors: the host's `vectorWidth`, or fewer along a
  /// short vector dimension (scheme::lanesAlong) or where full-rate
  /// narrower vectors leave fewer lanes idle (scheme::searchLanes).
  int vectorWidth() const { return vectorWidth_; }
  /// Every microkernel and combination that divides the problem; the
  /// fallback alone when none does.
  const std::vector<MicrokernelChoice> &choices() const { return choices_; }
  bool usesFallback() const { return choices_.front().fallback; }

  /// One random candidate: a choice drawn uniformly, completed at random.
  scheme::Scheme sample(std::mt19937_64 &random) const;
  /// A random completion of a given choice.
  scheme::Scheme complete(const MicrokernelChoice &choice,
                          std::mt19937_64 &random) const;

private:
  /// Tile of the choice along each dimension of the spec (the combination's
  /// total along the combination dimension).
  std::vector<int64_t> tileOf(const MicrokernelChoice &choice) const;
  void addDividingChoices(const MicrokernelClass &microkernelClass);
  /// The class with each factor but the combination dimension's cut to
  /// the problem: the vectorized one to the vectors it has, the others to
  /// the largest that divides their extent. Where the combination
  /// dimension has a single row, the class becomes that one row, its
  /// vectors widened as many times as its smallest member had rows.
  MicrokernelClass cutToProblem(const MicrokernelClass &microkernelClass) const;
  MicrokernelChoice fallback(const std::vector<MicrokernelClass> &classes) const;
  /// Inserts, with probability 1/2, a Pack of the packed tensor into
  /// `atoms` above index `end` (the reuse loop), at a position drawn among
  /// those where its tile fits the budget and is reused below. Always, when
  /// the tensor is not stored with the vectorized dimension contiguous (a
  /// transposed B): that Pack moves its axis last, as V's loads need.
  void maybePack(std::vector<scheme::Atom> &atoms, size_t end,
                 const std::vector<int64_t> &kernelTile,
                 std::mt19937_64 &random) const;
  /// With probability 1/2 and several workers, turns one of the loops item
  /// 6 of the space names into a Tpar, or fuses them into a Tfused.
  void maybeParallelize(std::vector<scheme::Atom> &atoms,
                        std::mt19937_64 &random) const;

  const spec::Spec &spec_;
  const MicrokernelFamily family_;
  int vectorWidth_;
  /// vectorWidth_ where the candidates' V fixes it (narrower than
  /// lanesAlong's), else 0.
  int fixedLanes_ = 0;
  std::vector<spec::DimId> familyDims_; ///< Spec dim of each family dim.
  size_t combinationIndex_ = 0; ///< Of the combination dim in the family.
  int64_t packBudgetBytes_;
  int workers_;
  /// The input a Pack copies: indexed by the vectorized dimension, not by
  /// the combination one (conv2d's W, matmul's B); none when no input is.
  std::optional<int> packedTensor_;
  /// The packed tensor is zero-padded along the vectorized dimension: half
  /// the candidates copy it, with its zeros, anywhere its tile fits the
  /// budget.
  bool packedForPadding_ = false;
  /// The packed tensor's axes with the vectorized one last, when its layout
  /// has another one contiguous; empty otherwise.
  std::vector<std::string> transposingOrder_;
  /// The batch dimensions: those the output and every input use, but the
  /// microkernel's (a depthwise convolution's channels), in the output's
  /// order (outermost first). No tensor of the product is reused
  /// across their iterations, so a loop over one inside another loop only
  /// moves that loop's reuse further apart: each is one loop at the top.
  std::vector<spec::DimId> batchDims_;
  std::vector<MicrokernelChoice> choices_;
};

} // namespace ttile::search

#endif // TTILE_SEARCH_SEARCHSPACE_H
