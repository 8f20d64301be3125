//===- ttile-bench/OneDnnMissing.cpp - The oneDNN peers without oneDNN ----===//
//
// Compiled instead of OneDnnConv.cpp and OneDnnMatMul.cpp when CMake found
// no oneDNN: the bench then measures ttile without it, and says so.
//
//===----------------------------------------------------------------------===//

#include "GemmPeers.h"
#include "OneDnnConv.h"

namespace ttile::bench {
namespace {

[[noreturn]] void missing() {
  throw Error("ttile-bench was built without oneDNN (scripts/setup installs "
              "it; then reconfigure)");
}

} // namespace

std::string oneDnnVersion() { return ""; }
void setOneDnnThreads(int) { missing(); }

struct OneDnnConv::Impl {};

OneDnnConv::OneDnnConv(const Conv2DParams &, ReorderTiming, int) {
  missing();
}
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::setData(const float *, const float *, const float *,
                         const float *) {
  missing();
}
void OneDnnConv::restoreResidual() { missing(); }
void OneDnnConv::run() { missing(); }
void OneDnnConv::readOutput(float *) { missing(); }
std::string OneDnnConv::implementation() const { missing(); }

std::unique_ptr<GemmPeer> oneDnnMatMulPeer() { missing(); }

} // namespace ttile::bench
