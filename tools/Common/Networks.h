//===- tools/Common/Networks.h - The layers of known networks ---*- C++ -*-===//
//
// The convolution layers `ttile-tune --net <name>` tunes:
//   resnet18, yolo9000  thesis Fig. 6.1 exactly: valid convolutions whose
//                       H/W is the output size, on a pre-padded input;
//   mobilenet           MobileNet v1, 224x224, batch 1, width 1.0, with
//                       its padding; its depthwise layers have groups = C;
//   resnet50            ResNet-50 v1.5 (the stride in the 3x3 convolution,
//                       as in torchvision and MLPerf), 224x224, batch 1,
//                       with its padding: its 53 convolutions as 23 distinct
//                       shapes, each with the number of times it occurs.
// With their real epilogues (the bias and, where the network has them, the
// activation and the residual: act(conv + bias + residual)):
//   resnet50-fused      ResNet-50 as above, ReLU after every convolution
//                       but the projection shortcuts, and the shortcut
//                       added before it on each block's output (its last
//                       1x1): 24 shapes, stage 1's expansion and shortcut
//                       apart;
//   mobilenetv2         MobileNet v2, 224x224: expansion 1x1 and depthwise
//                       3x3 with ReLU6, linear projection 1x1 with the
//                       residual where the block has one; 52 as 30 shapes;
//   darknet19           Darknet-19 (YOLO v2's backbone) at 416x416, padded,
//                       LeakyReLU(0.1) everywhere; 18 as 10 shapes;
//   yolov5-backbone     YOLOv5s's backbone at 640x640, SiLU everywhere (its
//                       shortcuts add after SiLU, so none is fused);
//                       33 as 22 shapes.
// Layer names are unique over all networks.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_NETWORKS_H
#define TTILE_TOOLS_COMMON_NETWORKS_H

#include "ttile/ttile.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::tools {

struct NamedLayer {
  std::string name;
  Conv2DParams params;
  /// Times the network computes this shape: its weight in averages over the
  /// network.
  int count = 1;
};

/// The names --net accepts.
const std::vector<std::string> &networkNames();

/// The layers of network `name`, one of networkNames(); empty otherwise.
std::vector<NamedLayer> networkLayers(std::string_view name);

/// The layer of a known network named `name`, such as "Yolo9000-18".
std::optional<NamedLayer> findNetworkLayer(std::string_view name);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_NETWORKS_H
