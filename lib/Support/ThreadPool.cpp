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
// A loop's iterations are cut into one contiguous block per worker. The
// caller runs block 0 and waits for the others; a worker claims its own
// block before it runs it. On a busy machine a worker may not be scheduled
// for milliseconds: the blocks not finished a microsecond after the
// caller's, the caller claims and runs those their workers have not (a
// worker descheduled in the middle of its block is still waited for). With 1.5
// CPUs of other load, running late blocks rather than waiting for them
// took the 90th percentile of a depthwise + 1x1 pass from 4.3-6.2 ms to
// 2.9-4.9 ms (6 paired runs, when any free worker ran them).
//
// A loop costs the cache lines it moves between the cores, about 50 ns
// each on a 2-core Zen 5 VM, where its work may be a microsecond (a
// 12x128x128 matmul on two threads). The caller writes the job on a line
// of its own, and each worker claims its block on a line only it writes
// and reports the block finished on another, which only the caller reads:
// the least a fork and join can move, one line out and one back. An empty
// loop on two workers took 210 ns when the caller and the workers claimed
// every block on shared lines and counted the unfinished ones down on the
// job's, and takes 130 ns (a one-line ping-pong between the two cores:
// 90-100 ns).
//
//===----------------------------------------------------------------------===//

#include "Support/ThreadPool.h"

#include "Support/AvailableCpus.h"
#include "Support/Environment.h"
#include "Support/Logging.h"
#include "Support/MutexAcrossFork.h"

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
/// The caller waits for the workers' blocks this many spins (a pause each,
/// about a microsecond in all) before it looks whether their workers have
/// started them, and runs those they have not.
constexpr int kSpinsBeforeStealing = 32;
/// And yields its core after this many (a worker may have been preempted).
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

/// An atomic on a cache line of its own, so that a write to it moves no
/// other data between the cores.
struct alignas(64) LineCounter {
  std::atomic<uint64_t> value{0};
};

class ThreadPool {
public:
  explicit ThreadPool(int workers)
      : workers_(workers), claimed_(static_cast<size_t>(workers)),
        finished_(static_cast<size_t>(workers)) {
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
    // Every block of the previous loop has finished, so no worker reads
    // the job while it changes: a late worker's claim for an old loop
    // fails (claim()).
    job_.body = body;
    job_.context = context;
    job_.iterations = iterations;
    const uint64_t generation =
        job_.generation.load(std::memory_order_relaxed) + 1;
    // Sequentially consistent, with the load of sleepers_ below and the
    // sleeper's increment and load in awaitJob: either the caller sees the
    // sleeper and wakes it, or the sleeper sees the new loop.
    job_.generation.store(generation);
    if (sleepers_.load() != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      wake_.notify_all();
    }
    runBlock(0, 0, generation);
    awaitBlocks(generation);
  }

private:
  /// Block b is the b-th of workers_ contiguous blocks of iterations: the
  /// iterations of a parallel loop cost the same, and a shared counter
  /// would bounce its cache line between the cores at every iteration (on
  /// a depthwise layer of 32 iterations of 0.3 us each, the loop took 2.3
  /// times as long as on one thread). Block 0 is the caller's; block w is
  /// worker w's, claimed for `generation` by moving its counter from the
  /// previous generation, by the worker or, when it is late, by the caller,
  /// so that it runs once per loop, and only while that loop is current.
  bool claim(int block, uint64_t generation) {
    uint64_t previous = generation - 1;
    return claimed_[block].value.compare_exchange_strong(
        previous, generation, std::memory_order_acq_rel);
  }

  /// Runs block `block` as `worker` (ids name per-thread scratch, so they
  /// are the running thread's, whichever block it runs).
  void runBlock(int block, int worker, uint64_t generation) {
    const int64_t begin = job_.iterations * block / workers_;
    const int64_t end = job_.iterations * (block + 1) / workers_;
    for (int64_t i = begin; i < end; ++i)
      job_.body(job_.context, i, worker);
    finished_[block].value.store(generation, std::memory_order_release);
  }

  /// The caller waits for the workers' blocks to finish. It reads only
  /// their finished_ lines, which the workers write once, until they are
  /// late: then it claims, once, each block not finished yet, and runs
  /// those its worker has not claimed. Reading claimed_ every time would
  /// cost each worker a transfer of that line at its next claim.
  void awaitBlocks(uint64_t generation) {
    for (int spins = 0;; ++spins) {
      bool finished = true;
      for (int block = 1; block < workers_; ++block) {
        if (finished_[block].value.load(std::memory_order_acquire) ==
            generation)
          continue;
        if (spins == kSpinsBeforeStealing && claim(block, generation))
          runBlock(block, 0, generation);
        else
          finished = false;
      }
      if (finished)
        return;
      if (spins < kSpinsBeforeYielding)
        relaxWhileSpinning();
      else
        std::this_thread::yield();
    }
  }

  /// Whether a loop newer than `seen` was published.
  bool newJob(uint64_t seen) const { return job_.generation.load() != seen; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  /// Waits for a loop newer than `seen`: spins, then sleeps.
  void awaitJob(uint64_t seen) {
    const Clock::time_point sleepAt = Clock::now() + kSpinBeforeSleeping;
    for (unsigned spins = 1; !newJob(seen) && !stopping(); ++spins) {
      relaxWhileSpinning();
      if (spins % 256 == 0 && Clock::now() > sleepAt) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1);
        wake_.wait(lock, [&] { return newJob(seen) || stopping(); });
        sleepers_.fetch_sub(1);
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
      seen = job_.generation.load(std::memory_order_acquire);
      if (claim(worker, seen))
        runBlock(worker, worker, seen);
    }
  }

  const int workers_;
  std::vector<std::thread> threads_;
  std::mutex busy_; ///< Held by the one parallel loop using the pool.
  /// The loop, written by the caller and only read by the workers: a line
  /// of its own, which moves once to each worker per loop.
  struct alignas(64) Job {
    Body body = nullptr;
    void *context = nullptr;
    int64_t iterations = 0;
    std::atomic<uint64_t> generation{0}; ///< Loops published so far.
  } job_;
  /// Per block, the last loop it was claimed for and the last it finished,
  /// a line each: the worker claims on a line only it touches while it is
  /// on time, and the caller waits on the finished one.
  std::vector<LineCounter> claimed_, finished_;
  std::mutex mutex_; ///< Orders publishing a loop with a worker's sleep.
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0}; ///< Workers asleep or about to be.
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

/// The process's pool, made at the first loop. The child of a fork() has
/// only the thread that forked, none of the pool's workers: its first loop
/// makes a pool of its own. Its parent's pool is left as the fork copied it,
/// never used (a worker may have held its mutex, or waited on its condition
/// variable, at the fork) and never destroyed (joining workers that are not
/// in the child would wait for ever, at exit()).
class PoolSlot {
public:
  static PoolSlot &get() {
    static PoolSlot slot;
    return slot;
  }

  ThreadPool &pool() {
    ThreadPool *current = current_.load(std::memory_order_acquire);
    if (current) [[likely]]
      return *current;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!current_.load(std::memory_order_relaxed))
      current_.store(new ThreadPool(configuredWorkers()),
                     std::memory_order_release);
    return *current_.load(std::memory_order_relaxed);
  }

private:
  PoolSlot() {
    support::holdMutexAcrossFork<PoolSlot, &PoolSlot::mutex_,
                                 &PoolSlot::forgetTheParentsPool>();
  }
  ~PoolSlot() { delete current_.load(); }

  /// In the child of a fork(), with mutex_ held since before it.
  void forgetTheParentsPool() {
    if (ThreadPool *parents = current_.exchange(nullptr))
      abandoned_.push_back(parents); // Reachable: not a leak to LSan.
  }

  std::atomic<ThreadPool *> current_{nullptr};
  std::mutex mutex_; ///< Serializes making the pool.
  std::vector<ThreadPool *> abandoned_;
};

ThreadPool &pool() { return PoolSlot::get().pool(); }

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

void ScopedTaskRunner::install(const TaskRunner &runner) {
  installed_ = true;
  previous_ = currentRunner;
  currentRunner = &runner;
}

void ScopedTaskRunner::uninstall() { currentRunner = previous_; }

} // namespace ttile

extern "C" void ttile_parallel_for(void (*body)(void *, int64_t, int64_t),
                                   void *context, int64_t iterations) {
  if (ttile::currentRunner && iterations > 1)
    ttile::runOnTasks(*ttile::currentRunner, body, context, iterations);
  else
    ttile::pool().run(body, context, iterations);
}
