//===- unittests/CodeGen/KernelTestUtil.h - Compile, run, check -*- C++ -*-===//
#ifndef TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
#define TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H

#include "JIT/Kernel.h"
#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ttile::testing {

/// How compilesAndMatches hands the residual to the kernel.
enum class Residual {
  Apart,   ///< In its own buffer.
  InPlace, ///< In the output buffer, as an in-place sum: out = act(... + out).
};

/// Compiles `scheme` for `spec`, runs it once (on its constant tensors laid
/// out for it), and checks it against the reference executor. Returns the
/// check's report on failure.
inline ::testing::AssertionResult
compilesAndMatches(const spec::Spec &spec, const std::string &scheme,
                   uint64_t seed = 1, const jit::CompileOptions &options = {},
                   Residual residual = Residual::Apart) {
  jit::Kernel kernel =
      jit::compileKernel(spec, scheme::parseScheme(scheme), options);
  // A huge output fill: a kernel that forgets to initialize shows.
  measure::TensorBuffers buffers(spec, seed, 1e30f);
  measure::KernelArguments arguments(kernel, buffers);
  std::vector<float *> pointers(arguments.pointers().begin(),
                                arguments.pointers().end());
  std::optional<int> residualTensor = spec.residualIndex();
  if (residual == Residual::InPlace && residualTensor) {
    std::copy_n(pointers[*residualTensor], spec.output().numElements(),
                pointers[0]);
    pointers[*residualTensor] = pointers[0];
  }
  kernel.run(pointers);
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  if (result.ok)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << scheme << " on " << spec.str() << ": " << result.report(spec);
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
