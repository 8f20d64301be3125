//===- unittests/Runtime/ThreadPoolTest.cpp - The parallel-loop workers ---===//
//
// ttile_parallel_for (Support/ThreadPool.h) hands a loop to workers that
// spin between loops and sleep when idle. These tests run loops back to
// back (the workers spinning), after a pause (the workers asleep), from
// several threads at once and beside threads that keep the CPUs busy, and
// check that every iteration ran exactly once on a worker no other running
// iteration held; likewise on threads an engine lends (ScopedTaskRunner). The TSan job of scripts/test
// runs this binary, so a race in publishing a loop fails here.
//
//===----------------------------------------------------------------------===//

#include "Support/ThreadPool.h"

#include "BusyCpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

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

TEST(ThreadPoolTest, AnEmptyRunnerLeavesThePool) {
  ScopedTaskRunner none(TaskRunner{});
  LoopRecord record(64);
  record.run();
  record.expectEachIterationRanOnce();
}

} // namespace
} // namespace ttile
