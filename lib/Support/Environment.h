//===- Support/Environment.h - ttile's environment variables ----*- C++ -*-===//
//
// ttile reads a few environment variables (TTILE_LOG, TTILE_NUM_THREADS,
// TTILE_CACHE, ...), each where it is used. These helpers read them the same
// way everywhere: strictly, case-insensitively for words, and with a warning
// that names the variable and what is used instead when a value is not
// understood. A typo must never change what ttile does without a word
// (TTILE_CACHE=OFF once left the cache on, TTILE_NUM_THREADS=1000 created a
// thousand threads).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_ENVIRONMENT_H
#define TTILE_SUPPORT_ENVIRONMENT_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttile {

/// The value of `name`, or nothing when it is unset or empty.
std::optional<std::string> environmentValue(const char *name);

/// `value` in lower case (ASCII).
std::string lowercase(std::string_view value);

/// An on/off variable: on, 1, true, yes are true; off, 0, false, no are
/// false (any case). Nothing when unset; a warning and nothing for any
/// other value, the variable then keeping its default (`fallback`, said in
/// the warning).
std::optional<bool> environmentSwitch(const char *name,
                                      std::string_view fallback);

/// A count of at least 1, in decimal. Nothing when unset; a warning and
/// nothing for anything else (0, -3, abc, 2x).
std::optional<int64_t> environmentCount(const char *name,
                                        std::string_view fallback);

} // namespace ttile

#endif // TTILE_SUPPORT_ENVIRONMENT_H
