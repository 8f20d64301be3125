//===- unittests/Spec/SpecTestUtil.h - Spec test helpers --------*- C++ -*-===//
#ifndef TTILE_UNITTESTS_SPEC_SPECTESTUTIL_H
#define TTILE_UNITTESTS_SPEC_SPECTESTUTIL_H

#include "Spec/Spec.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

namespace ttile::spec::test {

/// Whether `action` throws a ttile::Error whose message contains `expected`.
/// Messages are part of the interface: they must name what is wrong.
template <class Action>
testing::AssertionResult throwsErrorWith(Action &&action,
                                         std::string_view expected) {
  try {
    action();
  } catch (const Error &error) {
    if (std::string_view(error.what()).find(expected) != std::string_view::npos)
      return testing::AssertionSuccess();
    return testing::AssertionFailure() << "the message \"" << error.what()
                                       << "\" lacks \"" << expected << "\"";
  }
  return testing::AssertionFailure() << "no ttile::Error was thrown";
}

/// One buffer per tensor of a spec, the inputs filled with small random
/// values and the output with zeros.
class Buffers {
public:
  explicit Buffers(const Spec &spec, uint64_t seed = 1) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (const Tensor &tensor : spec.tensors) {
      data_.emplace_back(tensor.numElements(), 0.0f);
      if (tensor.role != TensorRole::Output)
        for (float &element : data_.back())
          element = value(random);
    }
    for (std::vector<float> &buffer : data_) {
      pointers_.push_back(buffer.data());
      constPointers_.push_back(buffer.data());
    }
  }

  // The pointers point into data_, which a copy would not share.
  Buffers(const Buffers &) = delete;
  Buffers &operator=(const Buffers &) = delete;

  std::vector<float> &operator[](size_t tensor) { return data_[tensor]; }
  std::span<float *const> all() { return pointers_; }
  std::span<const float *const> allConst() const { return constPointers_; }

private:
  std::vector<std::vector<float>> data_;
  std::vector<float *> pointers_;
  std::vector<const float *> constPointers_;
};

} // namespace ttile::spec::test

#endif // TTILE_UNITTESTS_SPEC_SPECTESTUTIL_H
