//===- ttile-bench/EigenMissing.cpp - Eigen's stand-in --------------------===//
//
// Built instead of EigenContraction.cpp when CMake found no Eigen 3.

#include "ContractionPeers.h"

namespace ttile::bench {

bool haveEigen(std::string &versionOrReason) {
  versionOrReason = "ttile-bench was built without Eigen (Debian's "
                    "libeigen3-dev; scripts/setup installs it)";
  return false;
}

OperandRun eigenRun(const ContractionParams &) {
  throw Error("ttile-bench was built without Eigen");
}

} // namespace ttile::bench
