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

#include <cstdint>
#include <mutex>
#include <vector>

namespace ttile::runtime {

class ZeroBias {
public:
  explicit ZeroBias(int64_t elements) : elements_(elements) {}

  /// `bias`, or zeros in its place when it is null. Thread-safe.
  const float *orZeros(const float *bias) {
    if (bias)
      return bias;
    std::call_once(allocated_, [&] {
      zeros_.assign(static_cast<size_t>(elements_), 0.0f);
    });
    return zeros_.data();
  }

private:
  int64_t elements_;
  std::once_flag allocated_;
  std::vector<float> zeros_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_ZEROBIAS_H
