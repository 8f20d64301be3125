//===- unittests/Runtime/ThreadPoolTest.cpp - The parallel-loop workers ---===//
//
// ttile_parallel_for (Support/ThreadPool.h) hands a loop to workers that
// spin between loops and sleep when idle. These tests run loops back to
// back (the workers spinning), after a pause (the workers asleep), from
// several threads at once, beside threads that keep the CPUs busy and in
// the child of a fork(), and check that every iteration ran exactly once
// on a worker no other running iteration held; likewise on threads an
// engine lends (ScopedTaskRunner). The TSan job of scripts/test runs this
// binary, so a race in publishing a loop fails here.
//
//===----------------------------------------------------------------------===//

#include "Support/ThreadPool.h"

#include "BusyCpus.h"
#include "Sanitizers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace ttile {
namespace {

/// One loop's record: how often each iteration ran, and which workers are
/// inside an iteration now.
struct LoopRecord {
  explicit LoopRecord(int64_t iterations)
      : runs(static_cast<size_t>(iterations)),
        busy(static_cast<size_t>(workerCount())) {}

  static void body(void *context, int64_t iteration, int64_t worker) {
    auto &record = *static_cast<LoopRecord *>(context);
    if (worker < 0 || worker >= workerCount()) {
      record.badWorker = true;
      return;
    }
    std::atomic<bool> &held = record.busy[static_cast<size_t>(worker)];
    if (held.exchange(true))
      record.sharedWorker = true;
    record.runs[static_cast<size_t>(iteration)].fetch_add(1);
    held.store(false);
  }

  void run() { ttile_parallel_for(&LoopRecord::body, this, runs.size()); }

  /// For a forked child, whose failed expectations nobody would see.
  bool ranEachIterationOnce() const {
    return !badWorker && !sharedWorker &&
           std::all_of(runs.begin(), runs.end(),
                       [](const std::atomic<int> &ran) { return ran == 1; });
  }

  void expectEachIterationRanOnce() const {
    EXPECT_FALSE(badWorker);
    EXPECT_FALSE(sharedWorker);
    for (size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), 1) << "iteration " << i;
  }

  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<bool>> busy;
  std::atomic<bool> badWorker{false}, sharedWorker{false};
};

TEST(ThreadPoolTest, LoopsBackToBackRunEveryIterationOnce) {
  for (int64_t loop = 0; loop < 5000; ++loop) {
    LoopRecord record(loop % 37);
    record.run();
    record.expectEachIterationRanOnce();
  }
}

TEST(ThreadPoolTest, LoopsAfterTheWorkersFellAsleep) {
  for (int loop = 0; loop < 3; ++loop) {
    // Longer than the workers spin before they sleep.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    LoopRecord record(64);
    record.run();
    record.expectEachIterationRanOnce();
  }
}

TEST(ThreadPoolTest, LoopsFromManyThreadsRunEveryIterationOnce) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int64_t loop = 0; loop < 500; ++loop) {
        LoopRecord record(1 + loop % 19);
        record.run();
        record.expectEachIterationRanOnce();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
}

// Threads that keep every CPU busy deschedule the workers now and then; a
// worker's block is then run by whoever is free (work stealing), and
// still exactly once.
TEST(ThreadPoolTest, LoopsOnABusyMachineRunEveryIterationOnce) {
  testing::BusyCpus busy;
  for (int64_t loop = 0; loop < 2000; ++loop) {
    LoopRecord record(1 + loop % 23);
    record.run();
    record.expectEachIterationRanOnce();
  }
}

// An engine lends its threads (RunArgs::parallelFor): each block of a
// loop is one task, run as a worker of its own, and the runner is used
// only while the scope that lends it lives.
TEST(ThreadPoolTest, LoopsOnALentRunnerRunEveryIterationOnce) {
  std::atomic<int64_t> calls{0}, mostTasks{0};
  TaskRunner onThreads = [&](int64_t tasks,
                             const std::function<void(int64_t)> &task) {
    ++calls;
    mostTasks = std::max<int64_t>(mostTasks, tasks);
    std::vector<std::thread> threads;
    for (int64_t i = 1; i < tasks; ++i)
      threads.emplace_back(task, i);
    task(0);
    for (std::thread &thread : threads)
      thread.join();
  };
  TaskRunner inTurn = [&](int64_t tasks,
                          const std::function<void(int64_t)> &task) {
    ++calls;
    for (int64_t i = 0; i < tasks; ++i)
      task(i);
  };
  for (const TaskRunner *runner : {&onThreads, &inTurn}) {
    calls = 0;
    {
      ScopedTaskRunner lent(*runner);
      for (int64_t loop = 0; loop < 200; ++loop) {
        LoopRecord record(2 + loop % 37);
        record.run();
        record.expectEachIterationRanOnce();
      }
    }
    EXPECT_EQ(calls, 200);
    LoopRecord afterwards(64);
    afterwards.run();
    afterwards.expectEachIterationRanOnce();
    EXPECT_EQ(calls, 200);
  }
  EXPECT_LE(mostTasks, workerCount());
  EXPECT_GE(mostTasks, std::min(2, workerCount()));
}

/// Forks a child that runs loops and exits 0, through exit() and so the
/// pool's destructor, when each ran every iteration once on the workers
/// the child's pool has; a hang ends it by SIGALRM.
void expectLoopsRunInAForkedChild(const char *when) {
  const pid_t child = fork();
  if (child == 0) {
    alarm(10);
    for (int64_t loop = 0; loop < 100; ++loop) {
      LoopRecord record(1 + loop % 37);
      record.run();
      if (!record.ranEachIterationOnce())
        _exit(1);
    }
    // Workers of its own: each claims its block of a loop that waits for
    // them, but for a worker descheduled past the caller's patience (its
    // block is then the caller's), so a few loops are allowed.
    const int workers = workerCount();
    bool eachWorkerRan = false;
    for (int attempt = 0; attempt < 100 && !eachWorkerRan; ++attempt) {
      std::vector<std::atomic<bool>> ran(static_cast<size_t>(workers));
      auto body = [](void *context, int64_t, int64_t worker) {
        static_cast<std::atomic<bool> *>(context)[worker] = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      };
      ttile_parallel_for(body, ran.data(), workers);
      eachWorkerRan =
          std::all_of(ran.begin(), ran.end(),
                      [](const std::atomic<bool> &r) { return r.load(); });
    }
    if (!eachWorkerRan)
      _exit(2);
    // exit(): the pool's destructor must not wait for the parent's
    // workers. Not under LeakSanitizer, which would report the state that
    // std::thread gave each of them: only their stacks, not in the child,
    // hold it.
    if constexpr (testing::kLeakChecked)
      _exit(0);
    std::exit(0);
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "forked " << when << ": the child "
      << (WIFSIGNALED(status)        ? "hung or crashed"
          : WEXITSTATUS(status) == 1 ? "missed iterations"
          : WEXITSTATUS(status) == 2 ? "ran on fewer workers than it has"
                                     : "failed")
      << " (status " << status << ")";
}

// The child of a fork() has only the thread that forked, not the pool's
// workers: its first loop makes a pool of its own, whose workers run its
// loops, whether the fork came between loops or while another thread was
// in one (a worker of the parent's pool may then have held its mutex),
// and its exit() does not wait for the parent's workers.
TEST(ThreadPoolTest, AForkedChildRunsLoopsOnWorkersOfItsOwn) {
  LoopRecord(64).run(); // The parent's workers exist before the fork.
  for (int round = 0; round < 10; ++round)
    expectLoopsRunInAForkedChild("between loops");
  std::atomic<bool> stop{false};
  std::thread looping([&] {
    while (!stop)
      LoopRecord(64).run();
  });
  for (int round = 0; round < 10; ++round)
    expectLoopsRunInAForkedChild("beside another thread's loops");
  stop = true;
  looping.join();
}

TEST(ThreadPoolTest, AnEmptyRunnerLeavesThePool) {
  ScopedTaskRunner none(TaskRunner{});
  LoopRecord record(64);
  record.run();
  record.expectEachIterationRanOnce();
}

} // namespace
} // namespace ttile
