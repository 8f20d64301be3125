//===- unittests/CodeGen/KernelTestUtil.h - Compile, run, check -*- C++ -*-===//
#ifndef TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
#define TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H

#include "JIT/Kernel.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ttile::testing {

/// Buffers for every tensor of a spec, inputs filled with small random
/// values and the output with garbage, so that a kernel that fails to
/// initialize its accumulators is caught.
struct TensorBuffers {
  std::vector<std::vector<float>> storage;
  std::vector<float *> pointers;

  TensorBuffers(const spec::Spec &spec, uint64_t seed) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (const spec::Tensor &tensor : spec.tensors) {
      std::vector<float> data(static_cast<size_t>(tensor.numElements()));
      for (float &element : data)
        element = tensor.role == spec::TensorRole::Output ? 1e30f : value(random);
      storage.push_back(std::move(data));
    }
    for (std::vector<float> &data : storage)
      pointers.push_back(data.data());
  }

  std::vector<const float *> constPointers() const {
    return {pointers.begin(), pointers.end()};
  }
};

/// Compiles `scheme` for `spec`, runs it once, and checks it against the
/// reference executor. Returns the check's report on failure.
inline ::testing::AssertionResult compilesAndMatches(const spec::Spec &spec,
                                                     const std::string &scheme,
                                                     uint64_t seed = 1) {
  jit::Kernel kernel =
      jit::compileKernel(spec, scheme::parseScheme(scheme));
  TensorBuffers buffers(spec, seed);
  kernel.run(buffers.pointers);
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  if (result.ok)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << scheme << " on " << spec.str() << ": " << result.report(spec);
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
