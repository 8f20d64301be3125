//===- ttile-bench/LibxsmmMissing.cpp - The libxsmm peer without libxsmm --===//
//
// Compiled instead of LibxsmmMatMul.cpp when CMake found no libxsmm: the
// bench then measures the other peers, and says so.
//
//===----------------------------------------------------------------------===//

#include "GemmPeers.h"

namespace ttile::bench {

std::unique_ptr<GemmPeer> libxsmmPeer(int) {
  throw Error("ttile-bench was built without libxsmm (scripts/setup "
              "installs it; then reconfigure)");
}

} // namespace ttile::bench
