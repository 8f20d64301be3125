//===- tools/Common/FuzzInput.h - Decoding a fuzzer's bytes -----*- C++ -*-===//
//
// How the parameter fuzzers turn libFuzzer's bytes into integer fields:
// ordinary sizes most of the time, and the edges a validator gets wrong.
// Header-only, so that each fuzzer compiles it with its instrumentation.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_FUZZINPUT_H
#define TTILE_TOOLS_COMMON_FUZZINPUT_H

#include <cstddef>
#include <cstdint>

namespace ttile::fuzz {

/// Takes bytes off the front of the input; zeros once it is exhausted.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() {
    if (size_ == 0)
      return 0;
    --size_;
    return *data_++;
  }
  template <typename T> T integer() {
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      value |= uint64_t(byte()) << (8 * i);
    return static_cast<T>(value);
  }

private:
  const uint8_t *data_;
  size_t size_;
};

/// The edges a validator gets wrong: around 0, 2^30, 2^31 (the largest
/// value accepted), 2^32, 2^40 (the largest tensor of a spec), 2^61 (the
/// largest product), and the ends of int64_t.
inline constexpr int64_t kEdges[] = {0,
                              int64_t(1) << 30,
                              int64_t(1) << 31,
                              int64_t(1) << 32,
                              int64_t(1) << 40,
                              int64_t(1) << 61,
                              INT64_MAX,
                              INT64_MIN};
inline constexpr int kEdgeCount = sizeof(kEdges) / sizeof(kEdges[0]);

/// One field, from a control byte c and what follows it:
///   c % 5 == 0  keep the current value
///   c % 5 == 1  a small value: the next byte, signed
///   c % 5 == 2  a medium one: the next 2 bytes, unsigned
///   c % 5 == 3  kEdges[c / 5 % kEdgeCount] plus the next byte mod 3, signed
///   c % 5 == 4  any value: the next 8 bytes
/// A hand-written seed is a few bytes (tools/ttile-params-fuzzer/corpus).
inline int64_t decodeField(Reader &input, int64_t current) {
  uint8_t control = input.byte();
  switch (control % 5) {
  case 0:
    return current;
  case 1:
    return input.integer<int8_t>();
  case 2:
    return input.integer<uint16_t>();
  case 3: {
    int64_t edge = kEdges[control / 5 % kEdgeCount], value;
    if (__builtin_add_overflow(edge, input.integer<int8_t>() % 3, &value))
      return edge;
    return value;
  }
  default:
    return input.integer<int64_t>();
  }
}

} // namespace ttile::fuzz

#endif // TTILE_TOOLS_COMMON_FUZZINPUT_H
