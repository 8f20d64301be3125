//===- Spec/Epilogue.cpp - The activations' reference semantics -----------===//

#include "Spec/Epilogue.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <utility>

namespace ttile::spec {
namespace {

constexpr std::array<std::pair<Activation, std::string_view>, 8> kNames{{
    {Activation::None, "none"},
    {Activation::ReLU, "relu"},
    {Activation::Clamp, "clamp"},
    {Activation::LeakyReLU, "leakyrelu"},
    {Activation::SiLU, "silu"},
    {Activation::HardSwish, "hardswish"},
    {Activation::Sigmoid, "sigmoid"},
    {Activation::Tanh, "tanh"},
}};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

} // namespace

std::string_view activationName(Activation activation) {
  for (const auto &[value, name] : kNames)
    if (value == activation)
      return name;
  return "unknown";
}

std::optional<Activation> activationFromName(std::string_view name) {
  for (const auto &[value, known] : kNames)
    if (std::equal(name.begin(), name.end(), known.begin(), known.end(),
                   [](char a, char b) {
                     return std::tolower(static_cast<unsigned char>(a)) == b;
                   }))
      return value;
  return std::nullopt;
}

double Epilogue::apply(double x) const {
  switch (activation) {
  case Activation::None:
    return x;
  case Activation::ReLU:
    return std::max(x, 0.0);
  case Activation::Clamp:
    return std::min(std::max(x, double(alpha)), double(beta));
  case Activation::LeakyReLU:
    return x >= 0 ? x : alpha * x;
  case Activation::SiLU:
    return x * sigmoid(x);
  case Activation::HardSwish:
    return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  case Activation::Sigmoid:
    return sigmoid(x);
  case Activation::Tanh:
    return std::tanh(x);
  }
  return x;
}

double Epilogue::lipschitzBound() const {
  switch (activation) {
  case Activation::LeakyReLU:
    return std::max(1.0, std::fabs(double(alpha)));
  case Activation::SiLU:
    return 1.1; // x * sigmoid(x) has a slope of at most 1.0998.
  case Activation::HardSwish:
    return 1.5; // (2x + 3) / 6 at x = 3.
  default:
    return 1.0;
  }
}

bool Epilogue::usesAlpha() const {
  return activation == Activation::Clamp ||
         activation == Activation::LeakyReLU;
}

bool Epilogue::usesBeta() const { return activation == Activation::Clamp; }

std::string Epilogue::str() const {
  if (activation == Activation::None)
    return "";
  std::string text(activationName(activation));
  if (usesBeta())
    return fmt::format("{}({},{})", text, alpha, beta);
  if (usesAlpha())
    return fmt::format("{}({})", text, alpha);
  return text;
}

} // namespace ttile::spec
