//===- Support/JsonNumbers.h - Integers from untrusted JSON -----*- C++ -*-===//
//
// nlohmann::json's get<int>() converts whatever number it holds with a
// static_cast: a float such as 1e22, or an integer outside the type, gives
// undefined behaviour (UBSan reports it) or a silently wrapped value. Files
// ttile reads back from disk (cache records, microkernel tables) may be
// damaged or foreign, so their integer fields are read through this instead.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_JSONNUMBERS_H
#define TTILE_SUPPORT_JSONNUMBERS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <utility>

namespace ttile {

/// The value as an Int when it is a JSON integer (not a float) that Int
/// holds exactly; none otherwise.
template <typename Int>
std::optional<Int> exactInteger(const nlohmann::json &value) {
  if (value.is_number_unsigned()) {
    auto number = value.get<uint64_t>();
    if (std::in_range<Int>(number))
      return static_cast<Int>(number);
  } else if (value.is_number_integer()) {
    auto number = value.get<int64_t>();
    if (std::in_range<Int>(number))
      return static_cast<Int>(number);
  }
  return std::nullopt;
}

} // namespace ttile

#endif // TTILE_SUPPORT_JSONNUMBERS_H
