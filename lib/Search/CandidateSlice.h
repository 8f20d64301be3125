//===- Search/CandidateSlice.h - Measuring on a slice -----------*- C++ -*-===//
//
// A candidate of a large problem runs for seconds: a 134-GFLOP contraction
// lasts 0.5-1 s a call, and measuring 20 candidates and 5 finalists at two
// to nine calls each took 70-260 s (docs/benchmarks/contractions.md). Its
// outermost loops, though, repeat one nest over the problem's slices: the
// first slice alone runs the same register tiles, packs and cache-level
// tiles, in about 1/n of the time. The tuner measures candidates on such a
// slice, and the winner on the whole problem.
//
// A slice runs the scheme's outermost loops for fewer iterations. From
// the top down to the first Pack, Hoist, U or V, each T(n,d) loop is
// dropped (and d's size divided by n) while the slice keeps at least
// `minFlops`, a call long enough to be timed in one; of the next loop that
// can be cut, the fewest iterations that keep minFlops stay. A Lambda keeps
// its share of each part's repetitions, one at least, so that both
// microkernels run, and the loops below it may be cut further, those over
// its dimension too (each part runs them). A parallel
// loop (Tpar, Tfused) whose outermost loop has an iteration for each worker
// keeps the fewest iterations per worker that keep minFlops, one where one
// is enough (where the workers do not divide that loop, the problem lasts
// its longest share of the iterations: a Tpar(3,d) on two workers, cut to
// Tpar(2,d), lasts two slices, not 1.5); below one of one iteration per
// worker or fewer, cut or not, loops are cut as at the top (those over its
// dimensions within each worker's share): a worker's iteration reuses
// nothing another left in a cache. (Measured whole, two-worker candidates
// with a Tpar or Tfused near their top ran 0.3-0.8 s a call on the large
// TCCG cases, where a slice lasts 20 ms.)
// Every other loop (R, another Tpar or Tfused, and a T or Lambda that
// cannot be cut) runs whole, and a loop below it is cut only where the
// data one iteration of the whole loop touches stays at the cache level it
// is reused from on the problem: the first level it fills at most half, or
// memory beyond twice the last level (within a factor of two of a level's
// capacity, no cut).
// Cutting under a whole loop regardless shrank what it reuses: on TCCG 20,
// below a whole loop over e, a 25-MB output slice that fits the 32-MB L3, where
// the 75-MB output does not, measured 24% faster than the problem ran.
// Forbidding every cut that shrinks a tensor the whole loop reuses left
// candidates with a Lambda at the top (TCCG 30: 90 MB reused from memory either
// way) measured whole, 1-3 s each. A dimension the scheme covers beyond its
// size (its last tile masked) is cut to the iterations that lie inside it, and
// there the iterations count, not the FLOPs: loops run their full trip counts
// in a masked tile, which costs what a whole one does. On TCCG 30 (g =
// 4320 in tiles of 64) such candidates were measured whole, 2-3 s each.
//
// Where a loop over a reduction index is cut, the slice may make one pass
// over the output where the problem makes several: its kernel is compiled
// not knowing that its pass is the first (jit::CompileOptions), so that it
// loads the partial sums every pass of the problem but the first loads.
//
// What a top-level cut shrinks stays cached between the slice's calls where
// the problem's may not: a slice can run faster than its problem (up to
// 20% on the TCCG cases cut below a Tpar), so the tuner measures its
// fastest finalists on the whole problem (Tuner.cpp, measureWholeProblem).
//
// The slice's spec keeps the problem's strides: its tensors are the first
// elements of the problem's own, at the same addresses' distances, so a
// slice kernel runs on the problem's buffers and is checked there against
// the reference of the slice.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_CANDIDATESLICE_H
#define TTILE_SEARCH_CANDIDATESLICE_H

#include "Scheme/Scheme.h"
#include "Spec/Spec.h"
#include "Support/Host.h"

#include <algorithm>
#include <cstdint>

namespace ttile::search {

struct CandidateSlice {
  spec::Spec spec;       ///< The problem's first slice (the problem itself when
                         ///< factor is 1).
  scheme::Scheme scheme; ///< The candidate without its peeled loops.
  /// The problem's iterations over the slice's: a call of the problem
  /// lasts about `factor` calls of the slice. The FLOPs' ratio, but where
  /// a masked dimension was cut, or a parallel loop whose workers' shares
  /// differ (the longest counts).
  double factor = 1;
  /// A loop over a reduction dimension above the accumulators' Hoist was
  /// cut: the slice may run one pass where the problem runs several, each
  /// loading the partial sums. Compile its kernel with
  /// jit::CompileOptions::firstPassUnknown, or it drops those loads.
  bool cutsReductionPasses = false;
};

/// The slice of `spec` on which to measure `candidate` (see above), at
/// least `minFlops` floating-point operations, for `target`'s vectors and
/// caches and `workers` running its parallel loops; the problem itself
/// when no loop can be peeled. `candidate` must be valid for `spec`.
CandidateSlice sliceCandidate(const spec::Spec &spec,
                              const scheme::Scheme &candidate,
                              const HostInfo &target, int workers,
                              double minFlops);

/// The least FLOPs of a slice that lasts `seconds` at the speed of the
/// fastest candidate so far, `fastestFlopsPerSecond` (0 before the first),
/// capped at the `peak`: the tuner's and the convergence study's slices.
/// (Sized at the peak, TCCG 7's candidates, 4.2 GFLOP at a quarter of it,
/// ran 150-ms calls whole on a Zen 4 thread.)
inline double sliceFlopsAt(double seconds, double fastestFlopsPerSecond,
                           double peak) {
  return seconds * (fastestFlopsPerSecond > 0
                        ? std::min(peak, fastestFlopsPerSecond)
                        : peak);
}

} // namespace ttile::search

#endif // TTILE_SEARCH_CANDIDATESLICE_H
