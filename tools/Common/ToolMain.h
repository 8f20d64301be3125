//===- tools/Common/ToolMain.h - What every ttile tool does alike -*- C++ -*-===//
//
// Every tool reports the same way: a usage error prints "<tool>: usage
// error: ..." with a pointer to --help and exits 2; a ttile::Error prints
// "<tool>: error: ..." and exits 1; otherwise the tool's own exit code.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_TOOLMAIN_H
#define TTILE_TOOLS_COMMON_TOOLMAIN_H

#include <CLI/CLI.hpp>

#include <functional>

namespace ttile::tools {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Parses the command line into `app`'s options, then runs `body` and
/// returns its exit code, or the code of the error that ended it.
int runTool(CLI::App &app, int argc, char **argv,
            const std::function<int()> &body);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_TOOLMAIN_H
