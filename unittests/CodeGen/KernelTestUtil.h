//===- unittests/CodeGen/KernelTestUtil.h - Compile, run, check -*- C++ -*-===//
#ifndef TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
#define TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H

#include "JIT/Kernel.h"
#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"

#include <gtest/gtest.h>

#include <string>

namespace ttile::testing {

/// Compiles `scheme` for `spec`, runs it once (on its constant tensors laid
/// out for it), and checks it against the reference executor. Returns the
/// check's report on failure.
inline ::testing::AssertionResult compilesAndMatches(const spec::Spec &spec,
                                                     const std::string &scheme,
                                                     uint64_t seed = 1,
                                                     const jit::CompileOptions &options = {}) {
  jit::Kernel kernel =
      jit::compileKernel(spec, scheme::parseScheme(scheme), options);
  // A huge output fill: a kernel that forgets to initialize shows.
  measure::TensorBuffers buffers(spec, seed, 1e30f);
  kernel.run(measure::KernelArguments(kernel, buffers).pointers());
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  if (result.ok)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << scheme << " on " << spec.str() << ": " << result.report(spec);
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CODEGEN_KERNELTESTUTIL_H
