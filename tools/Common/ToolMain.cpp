//===- tools/Common/ToolMain.cpp - What every ttile tool does alike -------===//

#include "ToolMain.h"

#include "ttile/Error.h"

#include <cstdio>

namespace ttile::tools {

int runTool(CLI::App &app, int argc, char **argv,
            const std::function<int()> &body) {
  const std::string name = app.get_name();
  app.failure_message([name](const CLI::App *, const CLI::Error &error) {
    return name + ": usage error: " + std::string(error.what()) +
           "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
    return body();
  } catch (const CLI::ParseError &error) {
    // --help is a ParseError that exits with 0.
    return app.exit(error) == 0 ? 0 : kExitUsage;
  } catch (const Error &error) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), error.what());
    return kExitFailure;
  }
}

} // namespace ttile::tools
