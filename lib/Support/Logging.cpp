//===- Support/Logging.cpp - The ttile logger -----------------------------===//

#include "Support/Logging.h"

#include "Support/Environment.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace ttile {

spdlog::logger &log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto created = std::make_shared<spdlog::logger>("ttile", sink);
    created->set_pattern("ttile: %l: %v");
    created->set_level(spdlog::level::warn);
    if (std::optional<std::string> value = environmentValue("TTILE_LOG")) {
      // spdlog reads any word it does not know as "off": a TTILE_LOG=WARN
      // once silenced everything.
      std::string word = lowercase(*value);
      spdlog::level::level_enum level = spdlog::level::from_str(word);
      if (level != spdlog::level::off || word == "off")
        created->set_level(level);
      else
        created->warn("TTILE_LOG={} is not a level (trace, debug, info, "
                      "warn, error, critical, off); using warn",
                      *value);
    }
    return created;
  }();
  return *logger;
}

} // namespace ttile
