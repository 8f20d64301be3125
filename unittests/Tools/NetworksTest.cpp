//===- unittests/Tools/NetworksTest.cpp -----------------------------------===//
//
// The networks of --net: every layer is a valid convolution, names are
// unique over all networks (--layer finds a layer by name), and the counts
// add up to the convolutions each network computes.
//
//===----------------------------------------------------------------------===//

#include "Networks.h"

#include <gtest/gtest.h>

#include <set>

namespace ttile::tools {
namespace {

int convolutions(const std::string &network) {
  int total = 0;
  for (const NamedLayer &layer : networkLayers(network))
    total += layer.count;
  return total;
}

TEST(Networks, EveryLayerIsValidAndNamedOnce) {
  std::set<std::string> names;
  for (const std::string &network : networkNames()) {
    std::vector<NamedLayer> layers = networkLayers(network);
    EXPECT_FALSE(layers.empty()) << network;
    for (const NamedLayer &layer : layers) {
      EXPECT_NO_THROW(Conv2D{layer.params}) << layer.name;
      EXPECT_TRUE(names.insert(layer.name).second) << layer.name;
      EXPECT_EQ(layer.name.find('_'), std::string::npos)
          << layer.name << ": '_' starts an epilogue after a layer's name";
    }
  }
}

TEST(Networks, CountsAreTheNetworksConvolutions) {
  EXPECT_EQ(convolutions("resnet50"), 53);
  EXPECT_EQ(convolutions("resnet50-fused"), 53);
  EXPECT_EQ(convolutions("mobilenetv2"), 52);
  EXPECT_EQ(convolutions("darknet19"), 18);
  EXPECT_EQ(convolutions("yolov5-backbone"), 33);
}

TEST(Networks, ResNet50FusedIsResNet50WithItsEpilogues) {
  std::vector<NamedLayer> plain = networkLayers("resnet50"),
                          fused = networkLayers("resnet50-fused");
  // Every shape of one is in the other, with the same total count.
  auto sameShape = [](const Conv2DParams &a, const Conv2DParams &b) {
    return a.K == b.K && a.C == b.C && a.H == b.H && a.R == b.R &&
           a.strideH == b.strideH && a.padTop == b.padTop;
  };
  for (const NamedLayer &layer : plain) {
    int count = 0;
    for (const NamedLayer &candidate : fused)
      if (sameShape(layer.params, candidate.params))
        count += candidate.count;
    EXPECT_EQ(count, layer.count) << layer.name;
  }
  int blockOutputs = 0;
  for (const NamedLayer &layer : fused)
    if (layer.params.residual) {
      EXPECT_EQ(layer.params.activation, Activation::ReLU) << layer.name;
      blockOutputs += layer.count;
    }
  EXPECT_EQ(blockOutputs, 16); // 3 + 4 + 6 + 3 bottlenecks.
}

TEST(Networks, MobileNetV2ResidualsAreLinear) {
  int residuals = 0;
  for (const NamedLayer &layer : networkLayers("mobilenetv2"))
    if (layer.params.residual) {
      EXPECT_EQ(layer.params.activation, Activation::None) << layer.name;
      EXPECT_EQ(layer.params.K, layer.params.C / 6) << layer.name;
      residuals += layer.count;
    } else if (layer.params.activation == Activation::Clamp) {
      EXPECT_EQ(layer.params.alpha, 0.f);
      EXPECT_EQ(layer.params.beta, 6.f);
    }
  EXPECT_EQ(residuals, 10); // Blocks with stride 1 and equal channels.
}

} // namespace
} // namespace ttile::tools
