//===- tools/Common/FuzzInput.h - What the fuzzers share --------*- C++ -*-===//
//
// How the parameter fuzzers (of Conv2D and MatMul) turn libFuzzer's bytes
// into integer fields, ordinary sizes most of the time and the edges a
// validator gets wrong; their tables of fields; and the checks of one call
// of a C API create function, whatever the operator (the einsum fuzzer
// uses these alone). Header-only, so that each fuzzer compiles it with its
// instrumentation.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_FUZZINPUT_H
#define TTILE_TOOLS_COMMON_FUZZINPUT_H

#include "ttile/ttile.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

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

/// What ttile.h promises of an accepted problem, which the fuzzers
/// recompute in 128-bit arithmetic: every size or field at most 2^31, no
/// tensor or buffer over 2^40 elements, at most 2^61 multiply-adds.
using Wide = __int128;
inline constexpr int64_t kLargestField = int64_t(1) << 31;
inline constexpr Wide kLargestTensor = Wide(1) << 40;
inline constexpr Wide kMostMultiplyAdds = Wide(1) << 61;

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

/// An integer field of a C parameter struct, with its smallest valid value.
template <typename Params> struct IntegerField {
  const char *name;
  int64_t Params::*member;
  int64_t least;
};

/// "N=1 C=8 ...": every field of the table, for a failure's message.
template <typename Params>
std::string describeFields(const Params &params,
                           std::span<const IntegerField<Params>> fields) {
  std::string text;
  for (const IntegerField<Params> &field : fields)
    text += std::string(field.name) + "=" +
            std::to_string(params.*field.member) + " ";
  return text;
}

/// What follows "<function>: " in `message`; none when it does not start so.
inline std::optional<std::string_view>
afterFunction(std::string_view message, std::string_view function) {
  if (!message.starts_with(function) ||
      !message.substr(function.size()).starts_with(": "))
    return std::nullopt;
  return message.substr(function.size() + 2);
}

/// Whether `message` is "<function>: " followed by one of `subjects`
/// ("the weights ...", "sizes \"").
inline bool namesItsSubject(std::string_view message, std::string_view function,
                            std::initializer_list<std::string_view> subjects) {
  std::optional<std::string_view> rest = afterFunction(message, function);
  if (!rest)
    return false;
  for (std::string_view subject : subjects)
    if (rest->starts_with(subject))
      return true;
  return false;
}

/// The same, or "<function>: " followed by a field's name and " ("
/// ("K (0) must ...").
template <typename Params>
bool namesItsSubject(std::string_view message, std::string_view function,
                     std::span<const IntegerField<Params>> fields,
                     std::initializer_list<std::string_view> subjects) {
  if (namesItsSubject(message, function, subjects))
    return true;
  std::optional<std::string_view> rest = afterFunction(message, function);
  if (!rest)
    return false;
  for (const IntegerField<Params> &field : fields)
    if (rest->starts_with(std::string(field.name) + " ("))
      return true;
  return false;
}

/// Stops the fuzzer with what `validator` broke, for libFuzzer to report.
[[noreturn]] inline void fail(const char *validator, const char *what,
                              const std::string &detail) {
  std::fprintf(stderr, "%s validation broken: %s: %s\n", validator, what,
               detail.c_str());
  std::abort();
}

/// The checks of one create call that returned `status` and `object`:
/// TTILE_OK with an object that keeps every promise (`brokenPromise`
/// returns none), then destroyed; or TTILE_INVALID_ARGUMENT, a null
/// object and a message that names its subject. `description` describes
/// the parameters for a failure.
template <typename Object, typename Promise, typename Names, typename Destroy>
void checkCreation(const char *validator, ttile_status status, Object *object,
                   const std::string &description, Promise brokenPromise,
                   Names namesSubject, Destroy destroy) {
  if (status == TTILE_OK) {
    if (!object)
      fail(validator, "TTILE_OK without an object", description);
    if (const char *broken = brokenPromise(object))
      fail(validator, broken, description);
    destroy(object);
    return;
  }
  std::string message = ttile_last_error();
  if (status != TTILE_INVALID_ARGUMENT)
    fail(validator, "a status other than TTILE_INVALID_ARGUMENT",
         message + " for " + description);
  if (object)
    fail(validator, "*out is not null after a failure", description);
  if (!namesSubject(message))
    fail(validator, "the message names no field",
         message + " for " + description);
}

} // namespace ttile::fuzz

#endif // TTILE_TOOLS_COMMON_FUZZINPUT_H
