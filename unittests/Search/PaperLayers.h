//===- unittests/Search/PaperLayers.h - Thesis Fig. 6.1 layers --*- C++ -*-===//
#ifndef TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H
#define TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H

#include "Networks.h"
#include "Spec/SpecBuilders.h"

#include <string>
#include <vector>

namespace ttile::testing {

/// The 23 layers of thesis Fig. 6.1 as valid convolutions: HW is the output
/// size, and the input is pre-padded.
struct PaperLayer {
  std::string name;
  int64_t K, C, HW, RS, stride;

  spec::Spec spec() const {
    spec::ConvShape shape;
    shape.K = K;
    shape.C = C;
    shape.outH = shape.outW = HW;
    shape.R = shape.S = RS;
    shape.strideH = shape.strideW = stride;
    return spec::conv2d(shape);
  }
};

/// Yolo9000's layers, then ResNet-18's, from the one table of Fig. 6.1
/// that the tools tune (tools/Common/Networks.cpp).
inline const std::vector<PaperLayer> &paperLayers() {
  static const std::vector<PaperLayer> layers = [] {
    std::vector<PaperLayer> all;
    for (const char *network : {"yolo9000", "resnet18"})
      for (const tools::NamedLayer &layer : tools::networkLayers(network)) {
        const Conv2DParams &p = layer.params;
        all.push_back({layer.name, p.K, p.C, (p.H - p.R) / p.strideH + 1, p.R,
                       p.strideH});
      }
    return all;
  }();
  return layers;
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H
