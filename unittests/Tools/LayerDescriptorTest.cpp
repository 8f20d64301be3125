//===- unittests/Tools/LayerDescriptorTest.cpp ----------------------------===//
//
// The epilogue words of layer descriptors: what each sets, that the
// canonical suffix reads back, and that what does not parse is an error
// rather than a plain layer with an odd name. The shape keys are tested
// through ttile-tune (test/Runtime/ttile-tune-layer-errors.test).
//
//===----------------------------------------------------------------------===//

#include "LayerDescriptor.h"
#include "LayerShape.h"

#include "ttile/Error.h"

#include <gtest/gtest.h>

namespace ttile::tools {
namespace {

constexpr const char *kShape = "ic64oc256ih56kh1";

Conv2DParams withEpilogue(const std::string &suffix) {
  return parseLayerDescriptor(kShape + suffix).params;
}

/// The message of the error parsing `text` throws; "" when it parses.
std::string errorOf(const std::string &text) {
  try {
    parseLayer(text);
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

TEST(LayerDescriptor, NoEpilogueByDefault) {
  Conv2DParams p = parseLayerDescriptor(kShape).params;
  EXPECT_EQ(p.activation, Activation::None);
  EXPECT_FALSE(p.residual);
  EXPECT_EQ(epilogueSuffix(p), "");
}

TEST(LayerDescriptor, EachActivationWord) {
  const std::pair<const char *, Activation> words[] = {
      {"_relu", Activation::ReLU},      {"_silu", Activation::SiLU},
      {"_hardswish", Activation::HardSwish}, {"_sigmoid", Activation::Sigmoid},
      {"_tanh", Activation::Tanh},
  };
  for (const auto &[word, activation] : words) {
    Conv2DParams p = withEpilogue(word);
    EXPECT_EQ(p.activation, activation) << word;
    EXPECT_FALSE(p.residual) << word;
    EXPECT_EQ(epilogueSuffix(p), word);
  }
}

TEST(LayerDescriptor, ActivationsWithNumbers) {
  Conv2DParams relu6 = withEpilogue("_relu6");
  EXPECT_EQ(relu6.activation, Activation::Clamp);
  EXPECT_EQ(relu6.alpha, 0.f);
  EXPECT_EQ(relu6.beta, 6.f);
  EXPECT_EQ(epilogueSuffix(relu6), "_clamp0:6");

  Conv2DParams clamp = withEpilogue("clamp-1:1.5");
  EXPECT_EQ(clamp.activation, Activation::Clamp);
  EXPECT_EQ(clamp.alpha, -1.f);
  EXPECT_EQ(clamp.beta, 1.5f);
  EXPECT_EQ(epilogueSuffix(clamp), "_clamp-1:1.5");

  Conv2DParams leaky = withEpilogue("_leakyrelu0.1");
  EXPECT_EQ(leaky.activation, Activation::LeakyReLU);
  EXPECT_EQ(leaky.alpha, 0.1f);
  EXPECT_EQ(epilogueSuffix(leaky), "_leakyrelu0.1");
}

TEST(LayerDescriptor, ResidualAloneOrWithAnActivation) {
  EXPECT_TRUE(withEpilogue("_res").residual);
  Conv2DParams p = withEpilogue("_res_relu");
  EXPECT_TRUE(p.residual);
  EXPECT_EQ(p.activation, Activation::ReLU);
  EXPECT_EQ(epilogueSuffix(p), "_res_relu");
  // In either order, the name still last.
  NamedLayer named = parseLayerDescriptor("ic8oc8ih8kh3_relu_res_nblock");
  EXPECT_TRUE(named.params.residual);
  EXPECT_EQ(named.params.activation, Activation::ReLU);
  EXPECT_EQ(named.name, "block");
}

TEST(LayerDescriptor, SuffixReadsBack) {
  Conv2DParams p = withEpilogue("_res_leakyrelu0.25");
  Conv2DParams again = withEpilogue(epilogueSuffix(p));
  EXPECT_EQ(again.activation, p.activation);
  EXPECT_EQ(again.alpha, p.alpha);
  EXPECT_EQ(again.residual, p.residual);
}

TEST(LayerDescriptor, ShapeShowsTheEpilogue) {
  EXPECT_EQ(formatShape(withEpilogue("_res_relu6")),
            "256,64,56,1 res clamp0:6");
}

TEST(LayerDescriptor, NetworkLayerWithAnEpilogue) {
  NamedLayer layer = parseLayer("Yolo9000-18_leakyrelu0.1");
  EXPECT_EQ(layer.name, "Yolo9000-18_leakyrelu0.1");
  EXPECT_EQ(layer.params.K, 1024);
  EXPECT_EQ(layer.params.activation, Activation::LeakyReLU);
  // A network layer keeps its own epilogue unless a suffix replaces it.
  EXPECT_TRUE(parseLayer("ResNet50F-4").params.residual);
  EXPECT_EQ(parseLayer("ResNet50F-4_silu").params.activation,
            Activation::SiLU);
  EXPECT_FALSE(parseLayer("ResNet50F-4_silu").params.residual);
}

TEST(LayerDescriptor, MalformedEpiloguesAreErrors) {
  const std::pair<std::string, std::string> cases[] = {
      {"ic8oc8ih8kh3_relu_silu", "two activations: 'relu' and 'silu'"},
      {"ic8oc8ih8kh3_relu6_relu6", "two activations"},
      {"ic8oc8ih8kh3_res_res", "'res' is given twice"},
      {"ic8oc8ih8kh3_clamp0", "'clamp' takes two bounds"},
      {"ic8oc8ih8kh3_clamp:6", "'clamp' needs a number"},
      {"ic8oc8ih8kh3_leakyrelu", "'leakyrelu' needs a number"},
      {"ic8oc8ih8kh3_leakyrelu0.1.2", "'leakyrelu' needs a number"},
      {"ic8oc8ih8kh3_relu7", "'relu' is followed by '7'"},
      {"ic8oc8ih8kh3_silu1", "'silu' is followed by '1'"},
      {"ic8oc8ih8kh3_swish", "unknown key 'swish'"},
      {"ic8oc8ih8kh3nconv_relu", "the name 'conv_relu' ends in '_relu'"},
      {"ic8oc8ih8kh3nconv_res_relu6", "ends in '_relu6'"},
      {"Yolo9000-18_ic8", "only an epilogue may follow the name of"},
      {"Yolo9000-18_", "only an epilogue may follow"},
  };
  for (const auto &[text, message] : cases)
    EXPECT_NE(errorOf(text).find(message), std::string::npos)
        << text << ": " << errorOf(text);
}

TEST(LayerDescriptor, NamesThatOnlyLookLikeEpiloguesStay) {
  EXPECT_EQ(parseLayerDescriptor("ic8oc8ih8kh3nconv_2").name, "conv_2");
  // A name that is an epilogue word is refused: "nrelu" once named the
  // layer relu and dropped its ReLU. Quoted, it is a name.
  EXPECT_THROW(parseLayerDescriptor("ic8oc8ih8kh3nrelu"), Error);
  EXPECT_EQ(parseLayerDescriptor("ic8oc8ih8kh3n\"relu\"").name, "relu");
  EXPECT_EQ(parseLayerDescriptor("ic8oc8ih8kh3n\"conv_relu\"").name,
            "conv_relu");
  EXPECT_EQ(
      parseLayerDescriptor("ic8oc8ih8kh3n\"conv_relu\"").params.activation,
      Activation::None);
}

} // namespace
} // namespace ttile::tools
