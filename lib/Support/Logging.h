//===- Support/Logging.h - The ttile logger ---------------------*- C++ -*-===//
//
// One spdlog logger named "ttile" on stderr. Its level comes from the
// TTILE_LOG environment variable (trace, debug, info, warn, error, off, in
// any case) and defaults to warn, so that a library embedded in a server
// stays quiet. Any other value keeps warn, and says so.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_LOGGING_H
#define TTILE_SUPPORT_LOGGING_H

#include <spdlog/spdlog.h>

namespace ttile {

spdlog::logger &log();

} // namespace ttile

#endif // TTILE_SUPPORT_LOGGING_H
