//===- Support/HazardPointer.h - Freeing what others read -------*- C++ -*-===//
//
// Hazard pointers (Michael, 2004): a thread that reads a pointer another
// thread may replace and free announces it in a slot of its own before
// using it, and the thread that replaced it waits, before freeing, until no
// slot holds it. The reader pays no atomic read-modify-write and writes
// only its own cache line, where a mutex and a shared_ptr copy cost four
// locked instructions that also serialize consecutive calls: a 4x4x4
// matmul's run() with constant B took 28.8-29.8 ns so, 12.9-13.3 with a
// guard, 10.1-10.5 with B given to the call (ttile-bench, Zen 5).
//
// The announcement must be visible to the writer before the reader reads
// the pointer again, which takes a full fence between the two. On Linux
// the writer issues that fence on every thread of the process instead
// (membarrier, private expedited), so the reader needs only a compiler
// barrier; where membarrier is not available, both sides fence.
//
// A guard lasts one scope; a thread may hold up to kGuardsPerThread at a
// time (ttile's runs hold one). The child of a fork() forgets the guards
// of the threads it does not have, which would otherwise hold its waits
// for ever.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_HAZARDPOINTER_H
#define TTILE_SUPPORT_HAZARDPOINTER_H

#include <array>
#include <atomic>

namespace ttile::support {

inline constexpr int kGuardsPerThread = 4;

namespace detail {

/// Throws: more guards than kGuardsPerThread at once on one thread.
[[noreturn]] void refuseGuard();

/// A thread's slots, on a cache line of their own. Never freed: a thread
/// that exits leaves its record to the next thread that starts.
struct alignas(64) HazardRecord {
  /// A slot that holds null protects nothing: a guard takes the first.
  std::array<std::atomic<const void *>, kGuardsPerThread> slots{};
  bool fencesAreAsymmetric = false;
  std::atomic<bool> owned{false};

  std::atomic<const void *> &freeSlot() {
    for (std::atomic<const void *> &slot : slots)
      if (!slot.load(std::memory_order_relaxed))
        return slot;
    refuseGuard();
  }
};

/// This thread's record; null until its first guard.
extern constinit thread_local HazardRecord *threadRecord;

/// Claims a record for this thread (out of line: once per thread).
HazardRecord &claimRecordForThisThread();

} // namespace detail

/// Reads `source` and keeps what it read from being freed through
/// waitUntilUnprotected() for as long as the guard lives.
template <typename T> class HazardGuard {
public:
  explicit HazardGuard(const std::atomic<T *> &source) {
    detail::HazardRecord *record = detail::threadRecord;
    if (!record) [[unlikely]]
      record = &detail::claimRecordForThisThread();
    slot_ = &record->freeSlot();
    T *read = source.load(std::memory_order_relaxed);
    for (;;) {
      slot_->store(read, std::memory_order_relaxed);
      // Announce before reading again; the writer's waitUntilUnprotected
      // either sees the slot or this thread sees the replacement.
      if (record->fencesAreAsymmetric)
        std::atomic_signal_fence(std::memory_order_seq_cst);
      else
        std::atomic_thread_fence(std::memory_order_seq_cst);
      T *again = source.load(std::memory_order_acquire);
      if (again == read)
        break;
      read = again;
    }
    pointer_ = read;
  }
  ~HazardGuard() {
    // Release: what this thread read through the pointer happens before
    // the writer's free, which acquires the slot emptied.
    slot_->store(nullptr, std::memory_order_release);
  }
  HazardGuard(const HazardGuard &) = delete;
  HazardGuard &operator=(const HazardGuard &) = delete;

  T *get() const { return pointer_; }
  T *operator->() const { return pointer_; }

private:
  std::atomic<const void *> *slot_;
  T *pointer_;
};

/// Once `pointer` is no longer in the source guards read it from (the
/// caller replaced it), returns when no guard that read it before is left:
/// then it may be freed. Waits as long as the longest of those guards.
void waitUntilUnprotected(const void *pointer);

} // namespace ttile::support

#endif // TTILE_SUPPORT_HAZARDPOINTER_H
