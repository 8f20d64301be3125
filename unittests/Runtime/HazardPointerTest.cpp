//===- unittests/Runtime/HazardPointerTest.cpp - Freeing under readers ----===//
//
// Support/HazardPointer.h, which constant weights are read through. Here
// because the ThreadSanitizer job of scripts/test runs this binary: a free
// that does not wait for a reader shows there (and under AddressSanitizer)
// as a report, and here as a wrong value.
//
//===----------------------------------------------------------------------===//

#include "Support/HazardPointer.h"

#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ttile::support {
namespace {

TEST(HazardPointerTest, AGuardReadsWhatTheSourceHolds) {
  int first = 1, second = 2;
  std::atomic<int *> source{&first};
  {
    HazardGuard guard(source);
    EXPECT_EQ(guard.get(), &first);
  }
  source.store(&second);
  waitUntilUnprotected(&first); // No guard left: returns at once.
  HazardGuard guard(source);
  EXPECT_EQ(guard.get(), &second);
}

/// A thread that holds a guard on `source` until release().
class GuardingThread {
public:
  explicit GuardingThread(const std::atomic<int *> &source)
      : thread_([this, &source] {
          HazardGuard guard(source);
          guarded_ = true;
          while (!released_)
            std::this_thread::yield();
        }) {
    while (!guarded_)
      std::this_thread::yield();
  }
  ~GuardingThread() { release(); }
  void release() {
    released_ = true;
    if (thread_.joinable())
      thread_.join();
  }

private:
  std::atomic<bool> guarded_{false}, released_{false};
  std::thread thread_;
};

TEST(HazardPointerTest, TheWaitLastsAsLongAsAGuardOfThePointer) {
  int first = 1, second = 2;
  std::atomic<int *> source{&first};
  GuardingThread reader(source);
  source.store(&second);
  std::atomic<bool> waited{false};
  std::thread writer([&] {
    waitUntilUnprotected(&first);
    waited = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(waited) << "the wait returned while a guard held the pointer";
  reader.release();
  writer.join();
  EXPECT_TRUE(waited);
}

TEST(HazardPointerTest, AThreadHoldsAtMostFourGuards) {
  int value = 0;
  std::atomic<int *> source{&value};
  HazardGuard a(source), b(source), c(source), d(source);
  try {
    HazardGuard fifth(source);
    ADD_FAILURE() << "a fifth guard was taken";
  } catch (const Error &error) {
    EXPECT_STREQ(error.what(),
                 "a thread may hold at most 4 hazard guards at a time");
  }
}

/// The child of a fork() has only the thread that forked: a guard that
/// another thread held at the fork must not make the child's wait hang.
TEST(HazardPointerTest, AForkedChildDoesNotWaitForThreadsItLacks) {
  int first = 1, second = 2;
  std::atomic<int *> source{&first};
  GuardingThread reader(source);
  const pid_t child = fork();
  if (child == 0) {
    alarm(10); // A hang ends the child by SIGALRM.
    source.store(&second);
    waitUntilUnprotected(&first);
    _exit(0);
  }
  reader.release();
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child's wait did not return (status " << status << ")";
}

/// Readers check every object they read while a writer replaces and frees
/// them as fast as it can.
TEST(HazardPointerTest, ReplacedObjectsAreFreedAfterTheirReaders) {
  struct Object {
    int id;
    int copy; // Equal to id while the object lives.
  };
  std::atomic<Object *> source{new Object{0, 0}};
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0}, reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      while (!stop) {
        HazardGuard guard(source);
        const int id = guard->id;
        for (volatile int spin = 0; spin < 200; spin = spin + 1) {
        } // A reader long enough for the writer to catch it.
        if (guard->copy != id)
          ++wrong;
        ++reads;
      }
    });
  while (reads < 100)
    std::this_thread::yield();
  for (int id = 1; id <= 200; ++id) {
    Object *replaced = source.exchange(new Object{id, id});
    waitUntilUnprotected(replaced);
    replaced->copy = -1; // What a reader would see, were it still reading.
    delete replaced;
  }
  stop = true;
  for (std::thread &reader : readers)
    reader.join();
  delete source.load();
  EXPECT_EQ(wrong, 0);
}

} // namespace
} // namespace ttile::support
