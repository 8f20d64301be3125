//===- Support/ThreadPool.h - Workers for parallel loops --------*- C++ -*-===//
//
// The workers that run the iterations of Tpar and Tfused loops. One pool per
// process, of TTILE_NUM_THREADS workers (default, and at most: the CPUs the
// process may use, Support/AvailableCpus.h), the calling thread being
// worker 0. Each worker runs a contiguous block of a loop's iterations,
// which all cost the same; the caller runs a late worker's block if the
// worker has not started it. The child of a fork() makes a pool of its
// own at its first loop, with workers of its own. Generated code reaches
// it through the C symbol ttile_parallel_for, so a kernel needs nothing
// but a function pointer.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_THREADPOOL_H
#define TTILE_SUPPORT_THREADPOOL_H

#include <cstdint>
#include <functional>

extern "C" {
/// Runs body(context, i, worker) for every i in [0, iterations), each once,
/// and returns when all are done. `worker` is in [0, ttile::workerCount())
/// and no two iterations running at the same time share it. When another
/// parallel loop is already using the pool (say, two threads each running a
/// kernel), the iterations run on the calling thread as worker 0.
void ttile_parallel_for(void (*body)(void *context, int64_t iteration,
                                     int64_t worker),
                        void *context, int64_t iterations);
}

namespace ttile {

/// Number of workers of the pool, the caller included.
int workerCount();

/// An engine's threads, which run `tasks` tasks, each once, at most `tasks`
/// at a time, and return when all have returned (RunArgs::parallelFor).
using TaskRunner =
    std::function<void(int64_t tasks, const std::function<void(int64_t)> &)>;

/// While it lives, the parallel loops started on this thread run on
/// `runner` rather than on the pool: one task per worker, each running one
/// contiguous block of the iterations as that worker. An engine that runs
/// ttile's kernels inside its own operators lends its threads this way, so
/// that two pools never compete for the cores. An empty runner changes
/// nothing, and costs nothing: the thread-local runner, a call into the
/// dynamic loader from a shared library, is not touched then (a small
/// matmul's run() is tens of nanoseconds).
class ScopedTaskRunner {
public:
  // Inline, so that a run() without a runner pays one test for it.
  explicit ScopedTaskRunner(const TaskRunner &runner) {
    if (runner) [[unlikely]]
      install(runner);
  }
  ~ScopedTaskRunner() {
    if (installed_) [[unlikely]]
      uninstall();
  }
  ScopedTaskRunner(const ScopedTaskRunner &) = delete;
  ScopedTaskRunner &operator=(const ScopedTaskRunner &) = delete;

private:
  void install(const TaskRunner &runner);
  void uninstall();

  bool installed_ = false;
  const TaskRunner *previous_ = nullptr;
};

} // namespace ttile

#endif // TTILE_SUPPORT_THREADPOOL_H
