//===- Support/Environment.cpp - ttile's environment variables ------------===//

#include "Support/Environment.h"

#include "Support/Logging.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace ttile {

std::optional<std::string> environmentValue(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

std::string lowercase(std::string_view value) {
  std::string lowered(value);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return lowered;
}

std::optional<bool> environmentSwitch(const char *name,
                                      std::string_view fallback) {
  std::optional<std::string> value = environmentValue(name);
  if (!value)
    return std::nullopt;
  std::string word = lowercase(*value);
  if (word == "on" || word == "1" || word == "true" || word == "yes")
    return true;
  if (word == "off" || word == "0" || word == "false" || word == "no")
    return false;
  log().warn("{}={} is not understood (on, off, 1, 0, true, false, yes, "
             "no); {}",
             name, *value, fallback);
  return std::nullopt;
}

std::optional<int64_t> environmentCount(const char *name,
                                        std::string_view fallback) {
  std::optional<std::string> value = environmentValue(name);
  if (!value)
    return std::nullopt;
  int64_t count = 0;
  const char *end = value->data() + value->size();
  auto [stop, error] = std::from_chars(value->data(), end, count);
  if (error == std::errc() && stop == end && count >= 1)
    return count;
  log().warn("{}={} is not a count of at least 1; {}", name, *value,
             fallback);
  return std::nullopt;
}

} // namespace ttile
