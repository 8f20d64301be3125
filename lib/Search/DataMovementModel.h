//===- Search/DataMovementModel.h - Rank schemes unrun ----------*- C++ -*-===//
//
// The data-movement metric of thesis 5.4.3, a simplified IOOpt: for each
// cache level, the shortest suffix of the loop nest whose footprint
// overflows the cache is assumed to bring its footprint in once per
// execution, so the volume moved into that level is that footprint times
// the number of executions above it. The metric sums the volumes of all
// levels, each divided by the bandwidth that fills it (the ECM model's
// argument): an estimate, in cycles, of the time spent moving data. Lower
// is better.
//
// Footprints are counted in cache lines, as caches move them: a tile's
// runs of contiguous elements are rounded out to whole lines, and a tile
// whose lines map to few of a cache's sets (rows a multiple of 4 KiB
// apart, all in one set of the L1) overflows it as soon as those sets
// are, however small it is. The innermost level's fills overlap the
// multiply-adds (the ECM model's in-core overlap): only the time they
// take beyond the kernel's FMAs at the peak counts. Below a Pack, the
// packed tensor's footprints are those of its buffer. Replayed on the TCCG
// convergence study of docs/benchmarks/contractions.md (36 cases, 200
// measured candidates each, `ttile-bench convergence --replay`), these,
// with the Packs' copies below, took the model-ranked best of 10 within 5%
// of the best of 200 from 12 cases to 25; on 19 convolutions and matrix
// products measured the same way, 15 stayed within 5% and the mean ratio
// went from 0.950 to 0.964.
//
// Two more terms are not cache levels. The output accumulators, loaded
// before every execution of the accumulation region (the Hoist) and stored
// after it, where no FMA hides them. A scheme that splits the reduction
// above its other loops reloads them once per split: on Yolo9000-23,
// T(2,c) ... Hoist(c) T(64,c) runs at 85% of peak and the same scheme with
// all 1024 channels below the Hoist at 93%, which the cache levels alone
// rank the other way round. Replayed on the two convergence studies of
// docs/benchmarks/oneDNN.md (4600 measured candidates each), the term
// improves the model-ranked best of 20 on 9 layers of one and 10 of the
// other, and worsens none, at kAccumulatorBytesPerCycle = 16 (at 64, on 2
// and 5 layers). Replayed on the two studies of the Intel Xeon (0.4.0 and
// 0.5.0), 8 brings one more layer within 5% of the best of 200 in each,
// and a higher mean ratio in both, than 16. And the copies of the Packs:
// a copy along the source's contiguous axis moves a vector a cycle, one
// that transposes an element a cycle, which the cache levels do not see at
// all. (Since 0.13.0 CodeGen/Pack.cpp transposes tiles of whole squares in
// registers, at about a third of that; the studies replayed here were
// measured with element copies, so the cost stays theirs.)
//
// Three refinements came from the convergence study of all 48 TCCG cases
// on AMD Zen 5 (docs/benchmarks/contractions.md, 0.19.0), where the 6-D
// ccsd_t cases 31-48 write an output of 151 MB, each element once:
//
//  - The accumulators are in registers during their region: below a Hoist
//    the output's tile takes no room in the caches, and only the inputs'
//    lines compete for them. As if it stayed there, a region of 14 rows of
//    the output 24 KiB apart (all in one set of the L1) would overflow its
//    sets and read its inputs again for every row: the model ranked the
//    fastest of case 44's 200 candidates 125th.
//  - The accumulators cost their rows as well as their bytes
//    (kAccumulatorRunCycles a row loaded or stored): 14 rows of 2 vectors
//    move as many bytes per multiply-add as 4 rows of 4, and run at a
//    median 33-39% of the peak on cases 33, 36, 43 and 46, against 59-65%.
//  - Where the output outgrows the outermost cache, every region loads its
//    accumulators from memory, and waits for them unless the hardware
//    prefetchers, following the runs the regions walk, have brought them
//    already. A region that steps away from the runs of the one before
//    starts new ones and waits a memory latency (kMemoryLatencyCycles),
//    which the multiply-adds hide as long as they last. The prefetchers
//    follow a constant stride within a page too, where the rows are whole
//    lines (none left for a region far away to finish). On the unfused
//    ones of cases 31-48 the loop just above the regions decides the
//    speed: 96-byte rows that it continues run at a median 35-50% of the
//    peak, the same rows started anew 1.5 KB away at 24-35%.
//
// Together they take the model-ranked best of 10 within 5% of the best of
// 200 on 38 of the 48 cases (29 before; each alone gains at most 4), and
// help the other studies replayed: the 29 cases of the Intel Xeon (25
// against 21) and 18 convolutions and matrix products (16 against 14, the
// rows' term alone, whose outputs the L3 holds).
//
// With several workers, a candidate's cost is divided by the speedup of its
// parallel loop: the workers move their shares at the same time, each
// through its own L1 and L2. Without it, the model ranked a serial
// candidate as high as the same scheme with a Tpar, and on two threads half
// the measured candidates were serial ones, about twice as slow. And each
// start of the parallel loop costs the pool's fork and join
// (kForkJoinCycles): a Tpar below a serial loop, or below a Lambda, starts
// once per iteration of it, which on a problem of a few microseconds costs
// more than the loop saves. The tuner ranks by cycles(), the multiply-adds
// shared by the workers beside the cost, so that a loop the workers share
// unevenly counts the work of the slowest. Replayed on two studies of two
// threads on Zen 5 (200 candidates each; docs/benchmarks/matmul.md), the
// starts take the model-ranked best of 10 within 5% of the best of 200
// from 13 to 14 of the 15 matmuls of the thesis's Fig. 5.6 sweep, and from
// 15 to 16 of MobileNet's 27 layers (within 10%: 18 to 21), at any price
// from 250 to 4000 cycles; ranking by cycles() rather than cost() changes
// neither.
//
// Two corrections came from 8192 products of 72x26 by 26x72 on two Zen 5
// threads (docs/benchmarks/matmul.md, 0.19.3). A Tfused runs its loops
// nested, the last innermost, each worker a contiguous block of them; the
// model had priced it as one loop whose iterations reuse nothing, so a
// Tfused that visits every item in two passes, over the halves of its
// columns (166-206 GFLOP/s), cost as little as the same loops with the
// items outermost (216-254). Both terms that walk the loops, the levels'
// movement and the output's runs, now nest them. And rows that are not
// whole lines continue the output's runs where the region's tile lies
// within a page (one stream the prefetchers follow, whose part lines a
// later region finishes while the caches hold them): 6 rows of 48 floats,
// 288 bytes apart, had counted as 12 new runs per item. Neither changes a
// replay of the studies above (MobileNet on two threads: 21 within 10%
// becomes 20, 16 within 5% and the mean as before).
//
// It is cheap (a walk of the tile tree), so the tuner can rank hundreds of
// candidates with it and measure only the best-ranked ones.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_DATAMOVEMENTMODEL_H
#define TTILE_SEARCH_DATAMOVEMENTMODEL_H

#include "Scheme/Tiling.h"
#include "Spec/Spec.h"
#include "Support/Host.h"

#include <vector>

namespace ttile::search {

struct CacheModelLevel {
  int64_t capacityBytes = 0;
  /// Bytes per cycle into this level from the one below it.
  double fillBytesPerCycle = 0;
  /// Lines per set; 0 for a fully associative cache (or one not known).
  int ways = 0;
};

class DataMovementModel {
public:
  /// Levels from the host's data caches, innermost first; fill bandwidths
  /// are typical of current x86 cores (64, 32 and 16 bytes per cycle into
  /// L1, L2 and L3), since the host does not report them. `workers` run
  /// the candidates' parallel loops.
  static DataMovementModel forHost(const HostInfo &host, int workers = 1);
  /// `fullRateLanes`: the widest vector whose FMAs issue at the full rate
  /// (HostInfo::fullRateLanes); 0 where every width does.
  explicit DataMovementModel(std::vector<CacheModelLevel> levels,
                             int workers = 1, int fullRateLanes = 0)
      : levels_(std::move(levels)), workers_(workers),
        fullRateLanes_(fullRateLanes) {}

  /// The price of the accumulators' loads and stores, which the
  /// accumulation region waits for: calibrated on the studies above.
  static constexpr double kAccumulatorBytesPerCycle = 8;
  /// And of each run of them (a row of the output tile) beyond its bytes:
  /// calibrated on the studies of contractions.md (0.19.0).
  static constexpr double kAccumulatorRunCycles = 2;
  /// What a region waits for its accumulators where they start a new run
  /// of an output that streams from memory: one memory latency (about
  /// 100 ns), the rows' misses overlapping.
  static constexpr double kMemoryLatencyCycles = 400;
  /// The cost of a Pack's copy, per element, where it cannot copy whole
  /// vectors (its innermost axis is not the source's contiguous one).
  static constexpr double kElementCopyCycles = 1;
  /// What starting a parallel loop costs beyond its iterations: the pool's
  /// fork and join (Support/ThreadPool.cpp), 130 ns on two Zen 5 workers
  /// (`ttile-bench fork-join`).
  static constexpr double kForkJoinCycles = 500;
  /// Two FMAs of two flops per lane and cycle: the peak the innermost
  /// level's fills overlap.
  static constexpr double kFlopsPerLanePerCycle = 4;
  /// The flops a cycle of vectors of `lanes`: kFlopsPerLanePerCycle a lane
  /// up to the full-rate lanes, no more beyond (Zen 4 issues one 16-lane
  /// FMA a cycle where it issues two of 8: the same flops).
  double flopsPerCycle(int lanes) const;

  /// Bytes moved into each level.
  std::vector<double> movement(const scheme::TileTree &tree,
                               const spec::Spec &spec) const;
  /// Bytes of accumulators loaded and stored: the output tile of every
  /// Hoist (or of every register tile outside one), twice per execution.
  static double accumulatorBytes(const scheme::TileTree &tree,
                                 const spec::Spec &spec);
  /// The runs of contiguous elements those bytes come in, twice per
  /// execution: one per row of the output tile (fewer where rows join).
  static double accumulatorRuns(const scheme::TileTree &tree,
                                const spec::Spec &spec);
  /// The times an accumulation region starts new runs of the output, where
  /// the output is larger than the outermost cache (it streams from
  /// memory); 0 otherwise. A Tfused's loops continue runs as the serial
  /// loops they are within each worker's block.
  double outputStreams(const scheme::TileTree &tree,
                       const spec::Spec &spec) const;
  /// The cycles `starts` of output runs wait beyond what the multiply-adds,
  /// `issueCycles` of them, hide: the regions that start a run wait a
  /// memory latency each, the others none.
  static double outputStreamCycles(double starts, double issueCycles);
  /// How many times faster `workers` run the tree than one: the parallel
  /// loop's iterations over the rounds they take (Tpar(3,h) on two: 1.5).
  /// 1 for a serial tree.
  static double parallelSpeedup(const scheme::TileTree &tree, int workers);
  /// The times the tree starts a parallel loop (a fork and a join each):
  /// the executions of its parallel loop, once per Lambda part above it. 0
  /// for a serial tree.
  static double parallelLoopStarts(const scheme::TileTree &tree);
  /// The cycles the copies of the tree's Packs take.
  static double packCopyCycles(const scheme::TileTree &tree,
                               const spec::Spec &spec);
  /// The cycles of the tree's multiply-adds at the peak of its lanes
  /// (flopsPerCycle): its time where nothing else waits.
  double computeCycles(const scheme::TileTree &tree,
                       const spec::Spec &spec) const;
  /// The cycles the innermost level's fills and the output's first misses
  /// hide behind in cost(): the multiply-adds at kFlopsPerLanePerCycle a
  /// lane, whatever the full-rate lanes. Calibrated so on Zen 5 and the
  /// Xeon; on Zen 4, hiding them behind computeCycles (twice as long for 16
  /// lanes) ranked 200 measured candidates worse: the model's best of 10
  /// over the best, mean over MobileNet v2's 30 layers 0.970 against
  /// 0.978, TCCG case 3 0.92 against 1.00 (ResNet-18's 12 layers 0.990
  /// against 0.988). Within one problem cost() ranks as before.
  static double issueCycles(const scheme::TileTree &tree,
                            const spec::Spec &spec);
  /// The metric: sum of movement / fill bandwidth (the innermost level's
  /// beyond issueCycles), plus the accumulators' bytes over
  /// kAccumulatorBytesPerCycle and their runs at kAccumulatorRunCycles,
  /// plus the output runs' outputStreamCycles,
  /// plus the Packs' copies, in cycles, over the parallel speedup; plus,
  /// on several workers, kForkJoinCycles per parallelLoopStarts.
  double cost(const scheme::TileTree &tree, const spec::Spec &spec) const;
  /// The time the model expects of the tree, in cycles: its multiply-adds
  /// at the peak, shared by the workers of its parallel loop, plus cost().
  /// For comparing different problems (a chain's orders), where cost()
  /// alone, which leaves out the work every candidate of one problem does,
  /// would prefer the one moving less data over the one doing less work.
  double cycles(const scheme::TileTree &tree, const spec::Spec &spec) const;
  /// cycles() of `scheme` as it will be compiled, with its inferred Hoist
  /// (Scheme/Normalize.h): what the tuner ranks the candidates of one
  /// problem by. On one worker the same order as cost();
  /// on several, a candidate whose parallel loop divides the work less
  /// evenly does more of it on the slowest worker.
  double cycles(const scheme::Scheme &scheme, const spec::Spec &spec,
                int vectorWidth) const;

private:
  std::vector<CacheModelLevel> levels_;
  int workers_;
  int fullRateLanes_;
};

} // namespace ttile::search

#endif // TTILE_SEARCH_DATAMOVEMENTMODEL_H
