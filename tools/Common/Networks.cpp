//===- tools/Common/Networks.cpp - The layers of known networks -----------===//

#include "Networks.h"

#include <span>

namespace ttile::tools {
namespace {

/// A row of thesis Fig. 6.1: (K, C, H/W, R/S) and the stride, where H/W is
/// the output size of a convolution on an input padded beforehand.
struct PaperRow {
  const char *name;
  int64_t K, C, outHW, RS, stride;
};

constexpr PaperRow kResNet18[] = {
    {"ResNet18-1", 64, 3, 224, 7, 2},    {"ResNet18-2", 64, 64, 56, 3, 1},
    {"ResNet18-3", 64, 64, 56, 1, 1},    {"ResNet18-4", 128, 64, 56, 3, 2},
    {"ResNet18-5", 128, 64, 56, 1, 2},   {"ResNet18-6", 128, 128, 28, 3, 1},
    {"ResNet18-7", 256, 128, 28, 3, 2},  {"ResNet18-8", 256, 128, 28, 3, 1},
    {"ResNet18-9", 256, 256, 14, 3, 1},  {"ResNet18-10", 512, 512, 14, 3, 2},
    {"ResNet18-11", 512, 256, 14, 1, 2}, {"ResNet18-12", 512, 512, 7, 3, 1},
};

// Yolo9000-23 keeps its true K; the paper padded it to 28272 for AVX-512,
// which ttile's masked vectors make unnecessary.
constexpr PaperRow kYolo9000[] = {
    {"Yolo9000-0", 32, 3, 544, 3, 1},
    {"Yolo9000-2", 64, 32, 272, 3, 1},
    {"Yolo9000-4", 128, 64, 136, 3, 1},
    {"Yolo9000-5", 64, 128, 136, 1, 1},
    {"Yolo9000-8", 256, 128, 68, 3, 1},
    {"Yolo9000-9", 128, 256, 68, 1, 1},
    {"Yolo9000-12", 512, 256, 34, 3, 1},
    {"Yolo9000-13", 256, 512, 34, 1, 1},
    {"Yolo9000-18", 1024, 512, 17, 3, 1},
    {"Yolo9000-19", 512, 1024, 17, 1, 1},
    {"Yolo9000-23", 28269, 1024, 17, 1, 1},
};

/// A MobileNet v1 layer: a full 3x3 convolution, a depthwise 3x3 one
/// (groups = C = K) or a pointwise 1x1 one, on an input of inHW x inHW.
struct MobileNetRow {
  const char *name;
  int64_t K, C, inHW, RS, stride, groups;
};

// Howard et al. 2017, Table 1, with the final depthwise layer at stride 1
// as in the reference implementations (the table's "s2" there is a typo: the
// output stays 7x7). 3x3 layers pad by 1 on every side.
constexpr MobileNetRow kMobileNet[] = {
    {"MobileNet-0", 32, 3, 224, 3, 2, 1},
    {"MobileNet-1dw", 32, 32, 112, 3, 1, 32},
    {"MobileNet-1pw", 64, 32, 112, 1, 1, 1},
    {"MobileNet-2dw", 64, 64, 112, 3, 2, 64},
    {"MobileNet-2pw", 128, 64, 56, 1, 1, 1},
    {"MobileNet-3dw", 128, 128, 56, 3, 1, 128},
    {"MobileNet-3pw", 128, 128, 56, 1, 1, 1},
    {"MobileNet-4dw", 128, 128, 56, 3, 2, 128},
    {"MobileNet-4pw", 256, 128, 28, 1, 1, 1},
    {"MobileNet-5dw", 256, 256, 28, 3, 1, 256},
    {"MobileNet-5pw", 256, 256, 28, 1, 1, 1},
    {"MobileNet-6dw", 256, 256, 28, 3, 2, 256},
    {"MobileNet-6pw", 512, 256, 14, 1, 1, 1},
    {"MobileNet-7dw", 512, 512, 14, 3, 1, 512},
    {"MobileNet-7pw", 512, 512, 14, 1, 1, 1},
    {"MobileNet-8dw", 512, 512, 14, 3, 1, 512},
    {"MobileNet-8pw", 512, 512, 14, 1, 1, 1},
    {"MobileNet-9dw", 512, 512, 14, 3, 1, 512},
    {"MobileNet-9pw", 512, 512, 14, 1, 1, 1},
    {"MobileNet-10dw", 512, 512, 14, 3, 1, 512},
    {"MobileNet-10pw", 512, 512, 14, 1, 1, 1},
    {"MobileNet-11dw", 512, 512, 14, 3, 1, 512},
    {"MobileNet-11pw", 512, 512, 14, 1, 1, 1},
    {"MobileNet-12dw", 512, 512, 14, 3, 2, 512},
    {"MobileNet-12pw", 1024, 512, 7, 1, 1, 1},
    {"MobileNet-13dw", 1024, 1024, 7, 3, 1, 1024},
    {"MobileNet-13pw", 1024, 1024, 7, 1, 1, 1},
};

/// A ResNet-50 convolution on an input of inHW x inHW, padded by RS/2 on
/// every side, occurring `count` times.
struct ResNet50Row {
  const char *name;
  int64_t K, C, inHW, RS, stride;
  int count;
};

// He et al. 2016, Table 1, in order: each stage's first block (its 1x1
// reduction, its 3x3, its 1x1 expansion, shared with the later blocks, and
// its projection shortcut), then the later blocks' 1x1 reduction and 3x3.
constexpr ResNet50Row kResNet50[] = {
    {"ResNet50-1", 64, 3, 224, 7, 2, 1},
    {"ResNet50-2", 64, 64, 56, 1, 1, 1},
    {"ResNet50-3", 64, 64, 56, 3, 1, 3},
    {"ResNet50-4", 256, 64, 56, 1, 1, 4},
    {"ResNet50-5", 64, 256, 56, 1, 1, 2},
    {"ResNet50-6", 128, 256, 56, 1, 1, 1},
    {"ResNet50-7", 128, 128, 56, 3, 2, 1},
    {"ResNet50-8", 512, 128, 28, 1, 1, 4},
    {"ResNet50-9", 512, 256, 56, 1, 2, 1},
    {"ResNet50-10", 128, 512, 28, 1, 1, 3},
    {"ResNet50-11", 128, 128, 28, 3, 1, 3},
    {"ResNet50-12", 256, 512, 28, 1, 1, 1},
    {"ResNet50-13", 256, 256, 28, 3, 2, 1},
    {"ResNet50-14", 1024, 256, 14, 1, 1, 6},
    {"ResNet50-15", 1024, 512, 28, 1, 2, 1},
    {"ResNet50-16", 256, 1024, 14, 1, 1, 5},
    {"ResNet50-17", 256, 256, 14, 3, 1, 5},
    {"ResNet50-18", 512, 1024, 14, 1, 1, 1},
    {"ResNet50-19", 512, 512, 14, 3, 2, 1},
    {"ResNet50-20", 2048, 512, 7, 1, 1, 3},
    {"ResNet50-21", 2048, 1024, 14, 1, 2, 1},
    {"ResNet50-22", 512, 2048, 7, 1, 1, 2},
    {"ResNet50-23", 512, 512, 7, 3, 1, 2},
};

std::vector<NamedLayer> paperLayers(std::span<const PaperRow> rows) {
  std::vector<NamedLayer> layers;
  for (const PaperRow &row : rows) {
    Conv2DParams params;
    params.C = row.C;
    params.K = row.K;
    params.H = params.W = (row.outHW - 1) * row.stride + row.RS;
    params.R = params.S = row.RS;
    params.strideH = params.strideW = row.stride;
    layers.push_back({row.name, params});
  }
  return layers;
}

/// A convolution on an input of inHW x inHW, padded by RS/2 on every side.
Conv2DParams paddedSquare(int64_t K, int64_t C, int64_t inHW, int64_t RS,
                          int64_t stride) {
  Conv2DParams params;
  params.C = C;
  params.K = K;
  params.H = params.W = inHW;
  params.R = params.S = RS;
  params.strideH = params.strideW = stride;
  params.padTop = params.padLeft = params.padBottom = params.padRight = RS / 2;
  return params;
}

std::vector<NamedLayer> mobileNetLayers() {
  std::vector<NamedLayer> layers;
  for (const MobileNetRow &row : kMobileNet) {
    Conv2DParams params =
        paddedSquare(row.K, row.C, row.inHW, row.RS, row.stride);
    params.groups = row.groups;
    layers.push_back({row.name, params});
  }
  return layers;
}

std::vector<NamedLayer> resNet50Layers() {
  std::vector<NamedLayer> layers;
  for (const ResNet50Row &row : kResNet50)
    layers.push_back(
        {row.name, paddedSquare(row.K, row.C, row.inHW, row.RS, row.stride),
         row.count});
  return layers;
}

} // namespace

const std::vector<std::string> &networkNames() {
  static const std::vector<std::string> names = {"resnet18", "yolo9000",
                                                 "mobilenet", "resnet50"};
  return names;
}

std::vector<NamedLayer> networkLayers(std::string_view name) {
  if (name == "resnet18")
    return paperLayers(kResNet18);
  if (name == "yolo9000")
    return paperLayers(kYolo9000);
  if (name == "mobilenet")
    return mobileNetLayers();
  if (name == "resnet50")
    return resNet50Layers();
  return {};
}

std::optional<NamedLayer> findNetworkLayer(std::string_view name) {
  for (const std::string &network : networkNames())
    for (NamedLayer &layer : networkLayers(network))
      if (layer.name == name)
        return std::move(layer);
  return std::nullopt;
}

} // namespace ttile::tools
