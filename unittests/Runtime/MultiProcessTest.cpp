//===- unittests/Runtime/MultiProcessTest.cpp - Processes sharing a cache -===//
//
// Two processes of a server fleet start on the same layer with one cache
// directory. The key lock of Cache/KernelCache.h must make exactly one of
// them tune; the other waits, then links the winner from the cache; both
// compute the right result.
//
// Two processes started at once may still run one after the other, and
// then a broken lock would go unnoticed. So this test holds the layer's
// lock itself while it starts the two (RuntimeTuneChild, TuneChild.cpp),
// waits until the kernel reports both blocked on it (/proc/locks), and only
// then lets them go: from there, they contend.
//
//===----------------------------------------------------------------------===//

#include "Cache/KernelCache.h"
#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "Runtime/ConvParams.h"
#include "Support/ThreadPool.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace ttile {
namespace {

namespace fs = std::filesystem;
using testing::IsolatedCache;
using testing::ScopedEnvironment;

/// A RuntimeTuneChild process writing its result to `resultFile`.
class TuneChild {
public:
  explicit TuneChild(fs::path resultFile) : resultFile_(std::move(resultFile)) {
    std::string program = TTILE_TUNE_CHILD;
    std::string result = resultFile_.string();
    char *argv[] = {program.data(), result.data(), nullptr};
    if (::posix_spawn(&pid_, program.c_str(), nullptr, nullptr, argv,
                      environ) != 0)
      pid_ = -1;
  }
  ~TuneChild() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  TuneChild(const TuneChild &) = delete;
  TuneChild &operator=(const TuneChild &) = delete;

  bool started() const { return pid_ > 0; }
  bool running() const { return started() && !status_; }
  pid_t pid() const { return pid_; }

  /// Whether it exited, without waiting.
  bool exited() {
    int status = 0;
    if (running() && ::waitpid(pid_, &status, WNOHANG) == pid_)
      status_ = status;
    return status_.has_value();
  }
  /// Waits for it to exit; its result line, or what went wrong.
  std::string wait() {
    int status = 0;
    if (running() && ::waitpid(pid_, &status, 0) == pid_)
      status_ = status;
    if (!status_ || !WIFEXITED(*status_) || WEXITSTATUS(*status_) != 0)
      return "failed (status " + std::to_string(status_.value_or(-1)) + ")";
    std::ifstream file(resultFile_);
    std::string line;
    std::getline(file, line);
    return line;
  }

private:
  fs::path resultFile_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

/// Processes blocked waiting for a flock on the file with inode `inode`:
/// the lines of /proc/locks marked "->" that name it (as MAJ:MIN:INODE).
int blockedOn(ino_t inode) {
  std::ifstream locks("/proc/locks");
  std::string line;
  int blocked = 0;
  std::string suffix = ":" + std::to_string(inode);
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string field;
    bool waiting = false, onInode = false;
    while (fields >> field) {
      waiting = waiting || field == "->";
      onInode = onInode || field.ends_with(suffix);
    }
    blocked += waiting && onInode;
  }
  return blocked;
}

TEST(MultiProcessTest, TwoProcessesTuneOneLayerOnce) {
  IsolatedCache cache;
  // The children must compute the same key, worker count included.
  ScopedEnvironment threads("TTILE_NUM_THREADS",
                            std::to_string(workerCount()));
  // The lock the children's KernelCache::lockForTuning takes, taken here
  // through the store so that a lockForTuning that locks nothing fails.
  cache::RecordStore store(cache.path());
  cache::CacheKey key = runtime::ConvProblem(testing::smallLayer()).cacheKey();
  std::optional<cache::KeyLock> lock;
  lock.emplace(store, cache::KernelCache::kKind, key.str());
  ASSERT_TRUE(lock->held());
  fs::path lockFile = store.pathFor(cache::KernelCache::kKind, key.str());
  lockFile += ".lock";
  struct stat lockStat {};
  ASSERT_EQ(::stat(lockFile.c_str(), &lockStat), 0) << lockFile;

  TuneChild first(cache.path() / "first.txt"),
      second(cache.path() / "second.txt");
  ASSERT_TRUE(first.started() && second.started()) << TTILE_TUNE_CHILD;
  // Starting a process that links LLVM takes a moment, much more under
  // sanitizers; the bound only keeps a broken lock from hanging the test.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (blockedOn(lockStat.st_ino) < 2) {
    ASSERT_FALSE(first.exited() || second.exited())
        << "a child finished while the parent held the lock: it did not wait";
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "the children never blocked on the lock";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  lock.reset();

  std::vector<std::string> results = {first.wait(), second.wait()};
  // One linked the other's winner and measured nothing; both are right.
  std::sort(results.begin(), results.end());
  EXPECT_TRUE(results[0].starts_with("cacheHit=0 trials=") &&
              !results[0].starts_with("cacheHit=0 trials=0 ") &&
              results[0].ends_with(" mismatches=0"))
      << "the tuner: " << results[0];
  EXPECT_EQ(results[1], "cacheHit=1 trials=0 mismatches=0");
  EXPECT_EQ(cache.records().size(), 1u);
}

} // namespace
} // namespace ttile
