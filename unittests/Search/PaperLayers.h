//===- unittests/Search/PaperLayers.h - Thesis Fig. 6.1 layers --*- C++ -*-===//
#ifndef TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H
#define TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H

#include "Spec/SpecBuilders.h"

#include <string>
#include <vector>

namespace ttile::testing {

/// The 23 layers of thesis Fig. 6.1 as valid convolutions: H = W is the
/// output size, and the input is pre-padded.
struct PaperLayer {
  std::string name;
  int64_t K, C, HW, RS, stride;

  spec::Spec spec() const {
    spec::ConvShape shape;
    shape.K = K;
    shape.C = C;
    shape.H = shape.W = HW;
    shape.R = shape.S = RS;
    shape.strideH = shape.strideW = stride;
    return spec::conv2d(shape);
  }
};

inline const std::vector<PaperLayer> &paperLayers() {
  static const std::vector<PaperLayer> layers = {
      {"Yolo9000-0", 32, 3, 544, 3, 1},      {"Yolo9000-2", 64, 32, 272, 3, 1},
      {"Yolo9000-4", 128, 64, 136, 3, 1},    {"Yolo9000-5", 64, 128, 136, 1, 1},
      {"Yolo9000-8", 256, 128, 68, 3, 1},    {"Yolo9000-9", 128, 256, 68, 1, 1},
      {"Yolo9000-12", 512, 256, 34, 3, 1},   {"Yolo9000-13", 256, 512, 34, 1, 1},
      {"Yolo9000-18", 1024, 512, 17, 3, 1},  {"Yolo9000-19", 512, 1024, 17, 1, 1},
      {"Yolo9000-23", 28269, 1024, 17, 1, 1}, {"ResNet18-1", 64, 3, 224, 7, 2},
      {"ResNet18-2", 64, 64, 56, 3, 1},      {"ResNet18-3", 64, 64, 56, 1, 1},
      {"ResNet18-4", 128, 64, 56, 3, 2},     {"ResNet18-5", 128, 64, 56, 1, 2},
      {"ResNet18-6", 128, 128, 28, 3, 1},    {"ResNet18-7", 256, 128, 28, 3, 2},
      {"ResNet18-8", 256, 128, 28, 3, 1},    {"ResNet18-9", 256, 256, 14, 3, 1},
      {"ResNet18-10", 512, 512, 14, 3, 2},   {"ResNet18-11", 512, 256, 14, 1, 2},
      {"ResNet18-12", 512, 512, 7, 3, 1}};
  return layers;
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SEARCH_PAPERLAYERS_H
