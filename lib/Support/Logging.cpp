//===- Support/Logging.cpp - The ttile logger -----------------------------===//

#include "Support/Logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

namespace ttile {

spdlog::logger &log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto created = std::make_shared<spdlog::logger>("ttile", sink);
    created->set_pattern("ttile: %l: %v");
    spdlog::level::level_enum level = spdlog::level::warn;
    if (const char *env = std::getenv("TTILE_LOG"))
      level = spdlog::level::from_str(env);
    created->set_level(level);
    return created;
  }();
  return *logger;
}

} // namespace ttile
