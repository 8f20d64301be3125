//===- Measure/AlignedBuffer.h - Float buffers for benchmarks ---*- C++ -*-===//
//
// The tensors a benchmark runs on. Every buffer starts on a 64-byte
// boundary, so that a kernel's vector loads never straddle a cache line
// because of where malloc happened to put its data, and every page is
// written once at allocation, so that no page fault lands in a timed run
// (thesis 4.6 names both as sources of noise).
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
#include <utility>

namespace ttile::measure {

class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;

  /// `count` floats, all zero.
  explicit AlignedBuffer(size_t count) : count_(count) {
    // std::aligned_alloc wants a size that is a multiple of the alignment.
    size_t bytes = std::max<size_t>(count * sizeof(float), 1);
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    data_ = static_cast<float *>(std::aligned_alloc(kAlignment, bytes));
    if (!data_)
      throw std::bad_alloc();
    fill(0.0f);
  }
  ~AlignedBuffer() { std::free(data_); }

  AlignedBuffer(AlignedBuffer &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept {
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
  float *data_ = nullptr;
  size_t count_ = 0;
};

} // namespace ttile::measure

#endif // TTILE_MEASURE_ALIGNEDBUFFER_H
