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

/// What a layer of a network with its epilogues adds to its convolution
/// besides the bias, which every one of them has (batch normalisation
/// folded into the weights and bias, as inference engines do).
enum class Tail {
  Linear,     ///< Nothing: a projection or a shortcut.
  Activation, ///< The network's activation.
  Residual,   ///< A residual, no activation: MobileNet v2's projections.
  ResidualActivation, ///< act(conv + bias + residual): ResNet's block outputs.
};

/// A convolution of a network with its epilogues, on an input of
/// inHW x inHW padded by `pad` on every side, occurring `count` times.
struct FusedRow {
  const char *name;
  int64_t K, C, inHW, RS, stride, pad, groups;
  int count;
  Tail tail;
};

// ResNet-50 v1.5 as kResNet50, with each stage's 1x1 expansion split from
// its projection shortcut where they share a shape (stage 1: ResNet50-4):
// every convolution but the shortcuts ends in ReLU, and the expansions, the
// blocks' outputs, add the shortcut before it.
constexpr FusedRow kResNet50Fused[] = {
    {"ResNet50F-1", 64, 3, 224, 7, 2, 3, 1, 1, Tail::Activation},
    {"ResNet50F-2", 64, 64, 56, 1, 1, 0, 1, 1, Tail::Activation},
    {"ResNet50F-3", 64, 64, 56, 3, 1, 1, 1, 3, Tail::Activation},
    {"ResNet50F-4", 256, 64, 56, 1, 1, 0, 1, 3, Tail::ResidualActivation},
    {"ResNet50F-4s", 256, 64, 56, 1, 1, 0, 1, 1, Tail::Linear},
    {"ResNet50F-5", 64, 256, 56, 1, 1, 0, 1, 2, Tail::Activation},
    {"ResNet50F-6", 128, 256, 56, 1, 1, 0, 1, 1, Tail::Activation},
    {"ResNet50F-7", 128, 128, 56, 3, 2, 1, 1, 1, Tail::Activation},
    {"ResNet50F-8", 512, 128, 28, 1, 1, 0, 1, 4, Tail::ResidualActivation},
    {"ResNet50F-9", 512, 256, 56, 1, 2, 0, 1, 1, Tail::Linear},
    {"ResNet50F-10", 128, 512, 28, 1, 1, 0, 1, 3, Tail::Activation},
    {"ResNet50F-11", 128, 128, 28, 3, 1, 1, 1, 3, Tail::Activation},
    {"ResNet50F-12", 256, 512, 28, 1, 1, 0, 1, 1, Tail::Activation},
    {"ResNet50F-13", 256, 256, 28, 3, 2, 1, 1, 1, Tail::Activation},
    {"ResNet50F-14", 1024, 256, 14, 1, 1, 0, 1, 6, Tail::ResidualActivation},
    {"ResNet50F-15", 1024, 512, 28, 1, 2, 0, 1, 1, Tail::Linear},
    {"ResNet50F-16", 256, 1024, 14, 1, 1, 0, 1, 5, Tail::Activation},
    {"ResNet50F-17", 256, 256, 14, 3, 1, 1, 1, 5, Tail::Activation},
    {"ResNet50F-18", 512, 1024, 14, 1, 1, 0, 1, 1, Tail::Activation},
    {"ResNet50F-19", 512, 512, 14, 3, 2, 1, 1, 1, Tail::Activation},
    {"ResNet50F-20", 2048, 512, 7, 1, 1, 0, 1, 3, Tail::ResidualActivation},
    {"ResNet50F-21", 2048, 1024, 14, 1, 2, 0, 1, 1, Tail::Linear},
    {"ResNet50F-22", 512, 2048, 7, 1, 1, 0, 1, 2, Tail::Activation},
    {"ResNet50F-23", 512, 512, 7, 3, 1, 1, 1, 2, Tail::Activation},
};

// MobileNet v2 (Sandler et al. 2018, Table 2), 224x224, width 1.0: the
// stem, then each bottleneck's expansion 1x1 (none in the first, t = 1),
// its depthwise 3x3 and its linear projection 1x1, which adds the block's
// input where shapes allow (stride 1, same channels), then the last 1x1 to
// 1280 channels; every activation is ReLU6. 52 convolutions as 30 shapes:
// a block's expansion shares its shape with the next stage's first one.
constexpr FusedRow kMobileNetV2[] = {
    {"MobileNetV2-0", 32, 3, 224, 3, 2, 1, 1, 1, Tail::Activation},
    {"MobileNetV2-1dw", 32, 32, 112, 3, 1, 1, 32, 1, Tail::Activation},
    {"MobileNetV2-1pj", 16, 32, 112, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-2ex", 96, 16, 112, 1, 1, 0, 1, 1, Tail::Activation},
    {"MobileNetV2-2dw", 96, 96, 112, 3, 2, 1, 96, 1, Tail::Activation},
    {"MobileNetV2-2pj", 24, 96, 56, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-3ex", 144, 24, 56, 1, 1, 0, 1, 2, Tail::Activation},
    {"MobileNetV2-3dw", 144, 144, 56, 3, 1, 1, 144, 1, Tail::Activation},
    {"MobileNetV2-3pj", 24, 144, 56, 1, 1, 0, 1, 1, Tail::Residual},
    {"MobileNetV2-4dw", 144, 144, 56, 3, 2, 1, 144, 1, Tail::Activation},
    {"MobileNetV2-4pj", 32, 144, 28, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-5ex", 192, 32, 28, 1, 1, 0, 1, 3, Tail::Activation},
    {"MobileNetV2-5dw", 192, 192, 28, 3, 1, 1, 192, 2, Tail::Activation},
    {"MobileNetV2-5pj", 32, 192, 28, 1, 1, 0, 1, 2, Tail::Residual},
    {"MobileNetV2-6dw", 192, 192, 28, 3, 2, 1, 192, 1, Tail::Activation},
    {"MobileNetV2-6pj", 64, 192, 14, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-7ex", 384, 64, 14, 1, 1, 0, 1, 4, Tail::Activation},
    {"MobileNetV2-7dw", 384, 384, 14, 3, 1, 1, 384, 4, Tail::Activation},
    {"MobileNetV2-7pj", 64, 384, 14, 1, 1, 0, 1, 3, Tail::Residual},
    {"MobileNetV2-8pj", 96, 384, 14, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-9ex", 576, 96, 14, 1, 1, 0, 1, 3, Tail::Activation},
    {"MobileNetV2-9dw", 576, 576, 14, 3, 1, 1, 576, 2, Tail::Activation},
    {"MobileNetV2-9pj", 96, 576, 14, 1, 1, 0, 1, 2, Tail::Residual},
    {"MobileNetV2-10dw", 576, 576, 14, 3, 2, 1, 576, 1, Tail::Activation},
    {"MobileNetV2-10pj", 160, 576, 7, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-11ex", 960, 160, 7, 1, 1, 0, 1, 3, Tail::Activation},
    {"MobileNetV2-11dw", 960, 960, 7, 3, 1, 1, 960, 3, Tail::Activation},
    {"MobileNetV2-11pj", 160, 960, 7, 1, 1, 0, 1, 2, Tail::Residual},
    {"MobileNetV2-12pj", 320, 960, 7, 1, 1, 0, 1, 1, Tail::Linear},
    {"MobileNetV2-13", 1280, 320, 7, 1, 1, 0, 1, 1, Tail::Activation},
};

// Darknet-19 (Redmon and Farhadi 2017, Table 6), YOLO v2's backbone, at
// YOLO v2's 416x416 (yolov2.cfg): its 18 convolutions before the
// classifier, 3x3 padded by 1 and 1x1, each with LeakyReLU(0.1). The
// Yolo9000 layers are the same convolutions at 544x544, without padding.
constexpr FusedRow kDarknet19[] = {
    {"Darknet19-1", 32, 3, 416, 3, 1, 1, 1, 1, Tail::Activation},
    {"Darknet19-2", 64, 32, 208, 3, 1, 1, 1, 1, Tail::Activation},
    {"Darknet19-3", 128, 64, 104, 3, 1, 1, 1, 2, Tail::Activation},
    {"Darknet19-4", 64, 128, 104, 1, 1, 0, 1, 1, Tail::Activation},
    {"Darknet19-5", 256, 128, 52, 3, 1, 1, 1, 2, Tail::Activation},
    {"Darknet19-6", 128, 256, 52, 1, 1, 0, 1, 1, Tail::Activation},
    {"Darknet19-7", 512, 256, 26, 3, 1, 1, 1, 3, Tail::Activation},
    {"Darknet19-8", 256, 512, 26, 1, 1, 0, 1, 2, Tail::Activation},
    {"Darknet19-9", 1024, 512, 13, 3, 1, 1, 1, 3, Tail::Activation},
    {"Darknet19-10", 512, 1024, 13, 1, 1, 0, 1, 2, Tail::Activation},
};

// YOLOv5s's backbone (Ultralytics v6+, yolov5s.yaml: depth 0.33, width
// 0.50) at its 640x640 input: the 6x6 stem, the 3x3 stride-2 convolutions
// between stages, each C3 block's cv1 and cv2 (1x1 to half the channels),
// its bottlenecks (1x1 then 3x3) and its cv3 (1x1 on both halves), and
// SPPF's two 1x1; 33 convolutions as 22 shapes, each with SiLU. The
// bottlenecks' shortcuts add *after* SiLU, x + silu(conv(.)), which is not
// act(conv + residual): they are left to the next operator.
constexpr FusedRow kYoloV5Backbone[] = {
    {"YoloV5s-0", 32, 3, 640, 6, 2, 2, 1, 1, Tail::Activation},
    {"YoloV5s-1", 64, 32, 320, 3, 2, 1, 1, 1, Tail::Activation},
    {"YoloV5s-2cv1", 32, 64, 160, 1, 1, 0, 1, 2, Tail::Activation},
    {"YoloV5s-2b1", 32, 32, 160, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-2b3", 32, 32, 160, 3, 1, 1, 1, 1, Tail::Activation},
    {"YoloV5s-2cv3", 64, 64, 160, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-3", 128, 64, 160, 3, 2, 1, 1, 1, Tail::Activation},
    {"YoloV5s-4cv1", 64, 128, 80, 1, 1, 0, 1, 2, Tail::Activation},
    {"YoloV5s-4b1", 64, 64, 80, 1, 1, 0, 1, 2, Tail::Activation},
    {"YoloV5s-4b3", 64, 64, 80, 3, 1, 1, 1, 2, Tail::Activation},
    {"YoloV5s-4cv3", 128, 128, 80, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-5", 256, 128, 80, 3, 2, 1, 1, 1, Tail::Activation},
    {"YoloV5s-6cv1", 128, 256, 40, 1, 1, 0, 1, 2, Tail::Activation},
    {"YoloV5s-6b1", 128, 128, 40, 1, 1, 0, 1, 3, Tail::Activation},
    {"YoloV5s-6b3", 128, 128, 40, 3, 1, 1, 1, 3, Tail::Activation},
    {"YoloV5s-6cv3", 256, 256, 40, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-7", 512, 256, 40, 3, 2, 1, 1, 1, Tail::Activation},
    {"YoloV5s-8cv1", 256, 512, 20, 1, 1, 0, 1, 3, Tail::Activation},
    {"YoloV5s-8b1", 256, 256, 20, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-8b3", 256, 256, 20, 3, 1, 1, 1, 1, Tail::Activation},
    {"YoloV5s-8cv3", 512, 512, 20, 1, 1, 0, 1, 1, Tail::Activation},
    {"YoloV5s-9sppf", 512, 1024, 20, 1, 1, 0, 1, 1, Tail::Activation},
};

/// The activation a network applies, with its parameters.
struct NetworkActivation {
  Activation activation;
  float alpha = 0, beta = 0;
};

std::vector<NamedLayer> fusedLayers(std::span<const FusedRow> rows,
                                    NetworkActivation act) {
  std::vector<NamedLayer> layers;
  for (const FusedRow &row : rows) {
    Conv2DParams params;
    params.C = row.C;
    params.K = row.K;
    params.H = params.W = row.inHW;
    params.R = params.S = row.RS;
    params.strideH = params.strideW = row.stride;
    params.padTop = params.padLeft = params.padBottom = params.padRight =
        row.pad;
    params.groups = row.groups;
    params.residual = row.tail == Tail::Residual ||
                      row.tail == Tail::ResidualActivation;
    if (row.tail == Tail::Activation || row.tail == Tail::ResidualActivation) {
      params.activation = act.activation;
      params.alpha = act.alpha;
      params.beta = act.beta;
    }
    layers.push_back({row.name, params, row.count});
  }
  return layers;
}

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
  static const std::vector<std::string> names = {
      "resnet18",       "yolo9000",    "mobilenet",
      "resnet50",       "resnet50-fused", "mobilenetv2",
      "darknet19",      "yolov5-backbone"};
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
  if (name == "resnet50-fused")
    return fusedLayers(kResNet50Fused, {Activation::ReLU});
  if (name == "mobilenetv2")
    return fusedLayers(kMobileNetV2, {Activation::Clamp, 0, 6});
  if (name == "darknet19")
    return fusedLayers(kDarknet19, {Activation::LeakyReLU, 0.1f});
  if (name == "yolov5-backbone")
    return fusedLayers(kYoloV5Backbone, {Activation::SiLU});
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
