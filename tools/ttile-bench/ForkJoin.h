//===- ttile-bench/ForkJoin.h - What a parallel loop costs ------*- C++ -*-===//
//
// Every parallel loop of a kernel pays a fork and a join on ttile's pool
// (Support/ThreadPool.h) beyond its iterations, and the data-movement
// model prices each start of one (DataMovementModel::kForkJoinCycles).
// `ttile-bench fork-join` measures both that cost, with an empty loop of
// one iteration per worker, and its floor on this machine, a cache line's
// round trip between two threads that spin on it: the pool cannot fork
// and join in less, since the caller publishes the loop on one line and
// learns that the worker's block is done from another.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_FORKJOIN_H
#define TTILE_TOOLS_TTILE_BENCH_FORKJOIN_H

namespace ttile::bench {

/// Prints the machine, then the median nanoseconds of an empty parallel
/// loop on the pool's workers and of a line's round trip between two
/// threads. 0 on success; 1 where the pool has one worker (no fork).
int benchForkJoin();

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_FORKJOIN_H
