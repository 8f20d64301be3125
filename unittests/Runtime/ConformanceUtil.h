//===- unittests/Runtime/ConformanceUtil.h - Reading the cases --*- C++ -*-===//
//
// What the conformance tests of Conv2D and MatMul share with each other and
// with scripts/make-conformance: the inputs, element by element its hash
// (value()), the activations by name, and the comparison with the
// expected outputs.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_RUNTIME_CONFORMANCEUTIL_H
#define TTILE_UNITTESTS_RUNTIME_CONFORMANCEUTIL_H

#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ttile::testing {

enum ConformanceTensor { Input = 0, Weights = 1, Bias = 2, Residual = 3 };

/// Element `index` of `tensor`: scripts/make-conformance's value().
inline float conformanceValue(ConformanceTensor tensor, int64_t index) {
  uint32_t x = static_cast<uint32_t>(index) * 0x9E3779B1u +
               static_cast<uint32_t>(tensor + 1) * 0x85EBCA77u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<float>(static_cast<int>(x % 17) - 8) / 8.0f;
}

inline std::vector<float> conformanceValues(ConformanceTensor tensor,
                                            int64_t count) {
  std::vector<float> result(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    result[static_cast<size_t>(i)] = conformanceValue(tensor, i);
  return result;
}

/// The enumerator named `name` in `names`; throws for another name.
template <typename Enum>
Enum enumerator(const std::map<std::string, Enum> &names,
                const std::string &name) {
  auto found = names.find(name);
  if (found == names.end())
    throw std::runtime_error("unknown enumerator '" + name + "'");
  return found->second;
}

inline Activation activationNamed(const std::string &name) {
  return enumerator<Activation>({{"None", Activation::None},
                                 {"ReLU", Activation::ReLU},
                                 {"Clamp", Activation::Clamp},
                                 {"LeakyReLU", Activation::LeakyReLU},
                                 {"SiLU", Activation::SiLU},
                                 {"HardSwish", Activation::HardSwish},
                                 {"Sigmoid", Activation::Sigmoid},
                                 {"Tanh", Activation::Tanh}},
                                name);
}

/// Whether `actual` is the case's `expected`: the sums are exact in float,
/// so the tolerance only allows for a kernel that rounds differently, and
/// for the float rounding of the transcendental activations.
inline bool conformant(float actual, double expected) {
  return std::abs(actual - expected) <=
         1e-5 * std::max(1.0, std::abs(expected));
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_CONFORMANCEUTIL_H
