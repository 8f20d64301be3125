//===- ttile-bench/OneDnnMissing.cpp - OneDnnConv without oneDNN ----------===//
//
// Compiled instead of OneDnnConv.cpp when CMake found no oneDNN: the bench
// then measures ttile alone, and says so.
//
//===----------------------------------------------------------------------===//

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

OneDnnConv::OneDnnConv(const Conv2DParams &, ReorderTiming) { missing(); }
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::setData(const float *, const float *, const float *,
                         const float *) {
  missing();
}
void OneDnnConv::restoreResidual() { missing(); }
void OneDnnConv::run() { missing(); }
void OneDnnConv::readOutput(float *) { missing(); }
std::string OneDnnConv::implementation() const { missing(); }

} // namespace ttile::bench
