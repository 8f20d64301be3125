//===- tools/Common/Networks.h - The layers of known networks ---*- C++ -*-===//
//
// The convolution layers `ttile-tune --net <name>` tunes:
//   resnet18, yolo9000  thesis Fig. 6.1 exactly: valid convolutions whose
//                       H/W is the output size, on a pre-padded input;
//   mobilenet           MobileNet v1, 224x224, batch 1, width 1.0, with
//                       its padding; its depthwise layers have groups = C.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_NETWORKS_H
#define TTILE_TOOLS_COMMON_NETWORKS_H

#include "ttile/ttile.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttile::tools {

struct NamedLayer {
  std::string name;
  Conv2DParams params;
};

/// The names --net accepts.
const std::vector<std::string> &networkNames();

/// The layers of network `name`, one of networkNames(); empty otherwise.
std::vector<NamedLayer> networkLayers(std::string_view name);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_NETWORKS_H
