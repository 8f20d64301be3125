//===- Support/ThreadPool.cpp - Workers for parallel loops ----------------===//

#include "Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace ttile {
namespace {

using Body = void (*)(void *, int64_t, int64_t);

class ThreadPool {
public:
  explicit ThreadPool(int workers) : workers_(workers) {
    for (int worker = 1; worker < workers; ++worker)
      threads_.emplace_back([this, worker] { serve(worker); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
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
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = body;
      context_ = context;
      iterations_ = iterations;
      next_.store(0);
      active_ = workers_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return active_ == 0; });
  }

private:
  void work(int worker) {
    for (int64_t i = next_.fetch_add(1); i < iterations_; i = next_.fetch_add(1))
      body_(context_, i, worker);
  }

  void serve(int worker) {
    uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_)
          return;
        seen = generation_;
      }
      work(worker);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0)
        done_.notify_one();
    }
  }

  const int workers_;
  std::vector<std::thread> threads_;
  std::mutex busy_;  ///< Held by the one parallel loop using the pool.
  std::mutex mutex_; ///< Guards the job fields and the counters below.
  std::condition_variable wake_, done_;
  Body body_ = nullptr;
  void *context_ = nullptr;
  int64_t iterations_ = 0;
  std::atomic<int64_t> next_{0};
  int active_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

int configuredWorkers() {
  if (const char *env = std::getenv("TTILE_NUM_THREADS")) {
    int requested = std::atoi(env);
    if (requested > 0)
      return requested;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool &pool() {
  static ThreadPool instance(configuredWorkers());
  return instance;
}

} // namespace

int workerCount() { return pool().workers(); }

} // namespace ttile

extern "C" void ttile_parallel_for(void (*body)(void *, int64_t, int64_t),
                                   void *context, int64_t iterations) {
  ttile::pool().run(body, context, iterations);
}
