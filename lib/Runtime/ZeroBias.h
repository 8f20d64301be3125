//===- Runtime/ZeroBias.h - The bias of a run without one -------*- C++ -*-===//
//
// Kernels always add a bias, so that one kernel serves runs with and
// without one; a run without passes zeros. They are allocated by the first
// such run rather than by the operator's constructor, which allocates
// nothing in proportion to the problem.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_ZEROBIAS_H
#define TTILE_RUNTIME_ZEROBIAS_H

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ttile::runtime {

class ZeroBias {
public:
  explicit ZeroBias(int64_t elements) : elements_(elements) {}

  /// `bias`, or zeros in its place when it is null. Thread-safe. Once
  /// they are allocated, an atomic load: std::call_once would also write
  /// thread-locals on every call.
  const float *orZeros(const float *bias) {
    if (bias)
      return bias;
    if (const float *zeros = zeros_.load(std::memory_order_acquire)) [[likely]]
      return zeros;
    return allocateZeros();
  }

private:
  /// The first run without a bias: out of line, so that the others, inline,
  /// are a test and a load.
  [[gnu::noinline, gnu::cold]] const float *allocateZeros() {
    std::lock_guard lock(mutex_);
    if (storage_.empty())
      storage_.assign(static_cast<size_t>(elements_), 0.0f);
    zeros_.store(storage_.data(), std::memory_order_release);
    return storage_.data();
  }

  int64_t elements_;
  std::mutex mutex_;
  std::vector<float> storage_;
  std::atomic<const float *> zeros_ = nullptr;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_ZEROBIAS_H
