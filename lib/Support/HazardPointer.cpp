//===- Support/HazardPointer.cpp - Freeing what others read --------------===//

#include "Support/HazardPointer.h"
#include "Support/MutexAcrossFork.h"

#include "ttile/Error.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ttile::support {
namespace detail {

constinit thread_local HazardRecord *threadRecord = nullptr;

} // namespace detail

namespace {

using detail::HazardRecord;

#ifdef __linux__
long membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }
#endif

/// Every record ever claimed, and whether the writer's fence reaches every
/// thread (then readers skip theirs).
class Registry {
public:
  static Registry &get() {
    // Leaked: threads may exit, and return their records, after main.
    static Registry *registry = new Registry;
    return *registry;
  }

  HazardRecord &claim() {
    std::lock_guard lock(mutex_);
    for (HazardRecord &record : records_)
      if (!record.owned.exchange(true, std::memory_order_acquire))
        return record;
    HazardRecord &record = records_.emplace_back();
    record.owned.store(true, std::memory_order_relaxed);
    record.fencesAreAsymmetric = fencesAreAsymmetric_;
    return record;
  }

  /// The records to scan; records are never removed, so these stay valid.
  std::vector<const HazardRecord *> snapshot() {
    std::lock_guard lock(mutex_);
    std::vector<const HazardRecord *> records;
    for (const HazardRecord &record : records_)
      records.push_back(&record);
    return records;
  }

  /// A full fence on every thread of the process, this one included.
  void fenceEveryThread() const {
    std::atomic_thread_fence(std::memory_order_seq_cst);
#ifdef __linux__
    if (!fencesAreAsymmetric_)
      return;
    // After registration the kernel refuses only when out of memory, and
    // a reader may be skipping its fence: try again until it succeeds.
    while (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
      if (errno != ENOMEM)
        throw Error(std::string("membarrier failed: ") + std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
#endif
  }

private:
  Registry() {
#ifdef __linux__
    // Before any record exists: readers learn from their record whether
    // they may skip their fence.
    fencesAreAsymmetric_ =
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
#endif
    // The records of the threads a fork() child does not have would keep
    // their slots for ever, and a setWeights() in the child would wait on
    // them.
    holdMutexAcrossFork<Registry, &Registry::mutex_,
                        &Registry::forgetOtherThreads>();
  }

  /// In the child of a fork(), with mutex_ held since before it.
  void forgetOtherThreads() {
    for (HazardRecord &record : records_)
      if (&record != detail::threadRecord) {
        for (std::atomic<const void *> &slot : record.slots)
          slot.store(nullptr, std::memory_order_relaxed);
        record.owned.store(false, std::memory_order_relaxed);
      }
  }

  std::mutex mutex_;
  std::deque<HazardRecord> records_; ///< A deque: records never move.
  bool fencesAreAsymmetric_ = false;
};

/// Gives this thread's record back when the thread exits.
struct RecordReturner {
  ~RecordReturner() {
    if (detail::threadRecord)
      detail::threadRecord->owned.store(false, std::memory_order_release);
    detail::threadRecord = nullptr;
  }
};

} // namespace

namespace detail {

HazardRecord &claimRecordForThisThread() {
  thread_local RecordReturner returner; // Registers the exit hook.
  threadRecord = &Registry::get().claim();
  return *threadRecord;
}

void refuseGuard() {
  throw Error("a thread may hold at most " + std::to_string(kGuardsPerThread) +
              " hazard guards at a time");
}

} // namespace detail

void waitUntilUnprotected(const void *pointer) {
  Registry &registry = Registry::get();
  registry.fenceEveryThread();
  // A small product's run returns within microseconds, a large
  // convolution's after tens of milliseconds: yield a few times, then
  // sleep rather than take a core from the runs waited for.
  for (const HazardRecord *record : registry.snapshot())
    for (const std::atomic<const void *> &slot : record->slots)
      for (int tries = 0; slot.load(std::memory_order_acquire) == pointer;
           ++tries)
        if (tries < 64)
          std::this_thread::yield();
        else
          std::this_thread::sleep_for(std::chrono::microseconds(100));
}

} // namespace ttile::support
