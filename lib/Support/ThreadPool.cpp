//===- Support/ThreadPool.cpp - Workers for parallel loops ----------------===//
//
// Between parallel loops the workers spin for a while before they sleep, as
// OpenMP runtimes do. Waking a sleeping thread through the kernel costs tens
// of microseconds on this kind of machine, as long as a whole small layer,
// and every loop waits for each worker's block. When the workers slept
// after every loop, a Tpar kernel ran little faster than a serial one
// (MobileNet-3dw on two threads at 0.34 of oneDNN). A spinning worker sees a
// new loop within a fraction of a microsecond. The spin ends after
// kSpinBeforeSleeping, so an idle process costs at most that much CPU per
// worker after its last loop.
//
// A loop's iterations are cut into one contiguous block per worker, and
// each block is claimed before it runs: a worker runs its own block first,
// then any block nobody has claimed yet. On a busy machine a worker may not
// be scheduled for milliseconds; its block is then run by the caller (or
// another worker) instead of waited for. With 1.5 CPUs of other load, the
// 90th percentile of a depthwise + 1x1 pass fell from 4.3-6.2 ms to
// 2.9-4.9 ms (6 paired runs); a worker descheduled in the middle of its
// block is still waited for.
//
//===----------------------------------------------------------------------===//

#include "Support/ThreadPool.h"

#include "Support/AvailableCpus.h"
#include "Support/Environment.h"
#include "Support/Logging.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ttile {
namespace {

using Body = void (*)(void *, int64_t, int64_t);
using Clock = std::chrono::steady_clock;

constexpr Clock::duration kSpinBeforeSleeping = std::chrono::milliseconds(1);
/// The caller waits for the workers' last iterations by spinning, and
/// yields its core after this many spins (a worker may have been preempted).
constexpr int kSpinsBeforeYielding = 1 << 14;

/// Tells the core that this thread is spinning (fewer pipeline flushes, and
/// the other hyperthread gets the core).
inline void relaxWhileSpinning() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class ThreadPool {
public:
  explicit ThreadPool(int workers)
      : workers_(workers), claimed_(static_cast<size_t>(workers)) {
    for (int worker = 1; worker < workers; ++worker)
      threads_.emplace_back([this, worker] { serve(worker); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread &thread : threads_)
      thread.join();
  }

  int workers() const { return workers_; }

  void run(Body body, void *context, int64_t iterations) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || workers_ == 1 || iterations == 1) {
      for (int64_t i = 0; i < iterations; ++i)
        body(context, i, 0);
      return;
    }
    // Every block of the previous loop has run (unfinished_ reached 0), so
    // no worker reads the job while it changes: a late worker's claim for
    // an old loop fails (work()). The mutex is for the sleepers: one that
    // is about to sleep sees the new generation or is woken.
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = body;
      context_ = context;
      iterations_ = iterations;
      unfinished_.store(workers_, std::memory_order_relaxed);
      generation = generation_.fetch_add(1, std::memory_order_release) + 1;
    }
    wake_.notify_all();
    work(0, generation);
    for (int spins = 0; unfinished_.load(std::memory_order_acquire) != 0;
         ++spins)
      if (spins < kSpinsBeforeYielding)
        relaxWhileSpinning();
      else
        std::this_thread::yield();
  }

private:
  /// Block b is the b-th of workers_ contiguous blocks of iterations: the
  /// iterations of a parallel loop cost the same, and a shared counter
  /// would bounce its cache line between the cores at every iteration (on
  /// a depthwise layer of 32 iterations of 0.3 us each, the loop took 2.3
  /// times as long as on one thread). A block is claimed for `generation`
  /// by moving its counter from the previous generation, so each runs once
  /// per loop, and only while that loop is the current one.
  bool claim(int block, uint64_t generation) {
    uint64_t previous = generation - 1;
    return claimed_[block].value.compare_exchange_strong(
        previous, generation, std::memory_order_acq_rel);
  }

  /// Runs this worker's own block, then every block still unclaimed. The
  /// worker id passed to the body is the running thread's, whichever block
  /// it runs: ids name per-thread scratch.
  void work(int worker, uint64_t generation) {
    for (int step = 0; step < workers_; ++step) {
      int block = (worker + step) % workers_;
      if (!claim(block, generation))
        continue;
      int64_t begin = iterations_ * block / workers_;
      int64_t end = iterations_ * (block + 1) / workers_;
      for (int64_t i = begin; i < end; ++i)
        body_(context_, i, worker);
      unfinished_.fetch_sub(1, std::memory_order_release);
    }
  }

  /// Whether a loop newer than `seen` was published.
  bool newJob(uint64_t seen) const {
    return generation_.load(std::memory_order_acquire) != seen;
  }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  /// Waits for a loop newer than `seen`: spins, then sleeps.
  void awaitJob(uint64_t seen) {
    const Clock::time_point sleepAt = Clock::now() + kSpinBeforeSleeping;
    for (unsigned spins = 1; !newJob(seen) && !stopping(); ++spins) {
      relaxWhileSpinning();
      if (spins % 256 == 0 && Clock::now() > sleepAt) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return newJob(seen) || stopping(); });
        return;
      }
    }
  }

  void serve(int worker) {
    uint64_t seen = 0;
    while (true) {
      awaitJob(seen);
      if (stopping())
        return;
      seen = generation_.load(std::memory_order_acquire);
      work(worker, seen);
    }
  }

  const int workers_;
  std::vector<std::thread> threads_;
  std::mutex busy_;  ///< Held by the one parallel loop using the pool.
  std::mutex mutex_; ///< Orders publishing a loop with a worker's sleep.
  std::condition_variable wake_;
  // The job, written by the caller while no worker reads it.
  Body body_ = nullptr;
  void *context_ = nullptr;
  int64_t iterations_ = 0;
  std::atomic<int> unfinished_{0};      ///< Blocks of this loop not yet run.
  std::atomic<uint64_t> generation_{0}; ///< Loops published so far.
  /// The last loop each block was claimed for; a cache line each, as the
  /// workers claim their own at once.
  struct alignas(64) Claim {
    std::atomic<uint64_t> value{0};
  };
  std::vector<Claim> claimed_;
  std::atomic<bool> stopping_{false};
};

/// TTILE_NUM_THREADS, or the CPUs available, and never more than those.
int configuredWorkers() {
  int cpus = availableCpus();
  std::optional<int64_t> requested = environmentCount(
      "TTILE_NUM_THREADS", fmt::format("using the {} CPUs available", cpus));
  if (!requested)
    return cpus;
  if (*requested > cpus) {
    log().warn("TTILE_NUM_THREADS={} exceeds the {} CPUs this process may "
               "use (affinity and cgroup quota); using {}",
               *requested, cpus, cpus);
    return cpus;
  }
  return static_cast<int>(*requested);
}

ThreadPool &pool() {
  static ThreadPool instance(configuredWorkers());
  return instance;
}

/// The runner of this thread's innermost ScopedTaskRunner, if any.
thread_local const TaskRunner *currentRunner = nullptr;

/// Runs the loop as the pool would, one contiguous block per worker, but
/// each block as a task of `runner`.
void runOnTasks(const TaskRunner &runner, Body body, void *context,
                int64_t iterations) {
  int64_t tasks = std::min<int64_t>(iterations, pool().workers());
  runner(tasks, [&](int64_t task) {
    int64_t end = iterations * (task + 1) / tasks;
    for (int64_t i = iterations * task / tasks; i < end; ++i)
      body(context, i, task);
  });
}

} // namespace

int workerCount() { return pool().workers(); }

ScopedTaskRunner::ScopedTaskRunner(const TaskRunner &runner)
    : previous_(currentRunner) {
  if (runner)
    currentRunner = &runner;
}

ScopedTaskRunner::~ScopedTaskRunner() { currentRunner = previous_; }

} // namespace ttile

extern "C" void ttile_parallel_for(void (*body)(void *, int64_t, int64_t),
                                   void *context, int64_t iterations) {
  if (ttile::currentRunner && iterations > 1)
    ttile::runOnTasks(*ttile::currentRunner, body, context, iterations);
  else
    ttile::pool().run(body, context, iterations);
}
