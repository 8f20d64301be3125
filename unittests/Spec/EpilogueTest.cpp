//===- unittests/Spec/EpilogueTest.cpp - The activations' definition ------===//

#include "Spec/Epilogue.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ttile::spec {
namespace {

TEST(EpilogueTest, ActivationsFollowOnnx) {
  auto apply = [](Activation activation, double x, float alpha = 0,
                  float beta = 0) {
    return Epilogue{activation, alpha, beta}.apply(x);
  };
  EXPECT_EQ(apply(Activation::None, -2.5), -2.5);
  EXPECT_EQ(apply(Activation::ReLU, -1), 0);
  EXPECT_EQ(apply(Activation::ReLU, 3), 3);
  EXPECT_EQ(apply(Activation::Clamp, 7, 0, 6), 6);
  EXPECT_EQ(apply(Activation::Clamp, -1, 0, 6), 0);
  EXPECT_EQ(apply(Activation::Clamp, 2.5, 0, 6), 2.5);
  EXPECT_DOUBLE_EQ(apply(Activation::LeakyReLU, -2, 0.125f), -0.25);
  EXPECT_EQ(apply(Activation::LeakyReLU, 2, 0.125f), 2);
  EXPECT_DOUBLE_EQ(apply(Activation::SiLU, 1), 1 / (1 + std::exp(-1.0)));
  EXPECT_DOUBLE_EQ(apply(Activation::HardSwish, 1), 4.0 / 6);
  EXPECT_EQ(apply(Activation::HardSwish, -4), 0);
  EXPECT_EQ(apply(Activation::HardSwish, 4), 4);
  EXPECT_EQ(apply(Activation::Sigmoid, 0), 0.5);
  EXPECT_DOUBLE_EQ(apply(Activation::Tanh, 1), std::tanh(1.0));
}

TEST(EpilogueTest, NamesRoundTripInAnyCase) {
  for (int a = 0; a <= static_cast<int>(Activation::Tanh); ++a) {
    auto activation = static_cast<Activation>(a);
    EXPECT_EQ(activationFromName(activationName(activation)), activation);
  }
  EXPECT_EQ(activationFromName("LeakyRelu"), Activation::LeakyReLU);
  EXPECT_EQ(activationFromName("SILU"), Activation::SiLU);
  EXPECT_FALSE(activationFromName("relu6").has_value());
  EXPECT_FALSE(activationFromName("").has_value());
}

TEST(EpilogueTest, StrNamesTheParametersRead) {
  EXPECT_EQ(Epilogue{}.str(), "");
  EXPECT_EQ((Epilogue{Activation::Clamp, 0, 6}).str(), "clamp(0,6)");
  EXPECT_EQ((Epilogue{Activation::LeakyReLU, 0.1f, 0}).str(),
            "leakyrelu(0.1)");
  EXPECT_EQ((Epilogue{Activation::SiLU, 0, 0}).str(), "silu");
  EXPECT_TRUE((Epilogue{Activation::Clamp, 0, 6}).usesBeta());
  EXPECT_FALSE((Epilogue{Activation::Tanh, 0, 0}).usesAlpha());
}

TEST(EpilogueTest, SlopeBoundsHold) {
  // The checker's tolerance relies on these bounds: sample every slope.
  for (int a = 0; a <= static_cast<int>(Activation::Tanh); ++a) {
    Epilogue epilogue{static_cast<Activation>(a), -0.5f, 2};
    for (double x = -10; x < 10; x += 1e-3) {
      double slope =
          std::fabs(epilogue.apply(x + 1e-3) - epilogue.apply(x)) / 1e-3;
      EXPECT_LE(slope, epilogue.lipschitzBound() + 1e-6)
          << activationName(epilogue.activation) << " at " << x;
    }
  }
}

} // namespace
} // namespace ttile::spec
