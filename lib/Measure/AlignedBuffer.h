//===- Measure/AlignedBuffer.h - Float buffers for benchmarks ---*- C++ -*-===//
//
// The tensors a benchmark runs on. Every buffer starts on a 64-byte
// boundary, so that a kernel's vector loads never straddle a cache line
// because of where malloc happened to put its data, and every page is
// written once at allocation, so that no page fault lands in a timed run
// (thesis 4.6 names both as sources of noise). A buffer can also start a
// chosen number of bytes past a 64-byte boundary, to measure what a caller
// whose allocator aligns to less (std::vector: 16 bytes) would see.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_ALIGNEDBUFFER_H
#define TTILE_MEASURE_ALIGNEDBUFFER_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>

namespace ttile::measure {

class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;

  /// `count` floats, all zero, starting `offsetBytes` past a 64-byte
  /// boundary: a multiple of 4 below 64 (else std::invalid_argument).
  explicit AlignedBuffer(size_t count, size_t offsetBytes = 0)
      : count_(count) {
    if (offsetBytes % sizeof(float) != 0 || offsetBytes >= kAlignment)
      throw std::invalid_argument(
          "a buffer's offset from a 64-byte boundary must be a multiple of "
          "4 below 64 bytes");
    // std::aligned_alloc wants a size that is a multiple of the alignment.
    size_t bytes = std::max<size_t>(count * sizeof(float) + offsetBytes, 1);
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    allocation_ = static_cast<float *>(std::aligned_alloc(kAlignment, bytes));
    if (!allocation_)
      throw std::bad_alloc();
    data_ = allocation_ + offsetBytes / sizeof(float);
    fill(0.0f);
  }
  ~AlignedBuffer() { std::free(allocation_); }

  AlignedBuffer(AlignedBuffer &&other) noexcept
      : allocation_(std::exchange(other.allocation_, nullptr)),
        data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept {
    std::swap(allocation_, other.allocation_);
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;

  float *data() { return data_; }
  const float *data() const { return data_; }
  size_t size() const { return count_; }
  std::span<float> span() { return {data_, count_}; }
  std::span<const float> span() const { return {data_, count_}; }

  void fill(float value) { std::fill_n(data_, count_, value); }

  /// Uniform values in [-1, 1), the same for the same seed on every
  /// platform: std::uniform_real_distribution is implementation-defined
  /// (and may return 1.0f), so the floats are built from 24 random bits.
  void fillRandom(uint64_t seed) {
    std::mt19937_64 generator(seed);
    for (size_t i = 0; i < count_; ++i) {
      auto mantissa = static_cast<int64_t>(generator() >> 40); // [0, 2^24)
      data_[i] = static_cast<float>(mantissa - (int64_t(1) << 23)) /
                 static_cast<float>(int64_t(1) << 23);
    }
  }

private:
  float *allocation_ = nullptr; ///< What aligned_alloc returned.
  float *data_ = nullptr;
  size_t count_ = 0;
};

} // namespace ttile::measure

#endif // TTILE_MEASURE_ALIGNEDBUFFER_H
