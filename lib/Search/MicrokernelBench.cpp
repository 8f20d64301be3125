//===- Search/MicrokernelBench.cpp - Measure one microkernel --------------===//

#include "Search/MicrokernelBench.h"

#include "Spec/Check.h"
#include "ttile/Error.h"

#include <limits>
#include <map>

namespace ttile::search {

measure::MeasureOptions offlineMeasureOptions() {
  measure::MeasureOptions options;
  options.minSeconds = 0.014;
  options.repetitions = 7;
  return options;
}

namespace {

/// The size of every dimension of the microkernel's own problem, in the
/// family's own names: the unrolled ones, and the reuse one repeated
/// `reuseCount` times.
std::map<std::string, int64_t>
problemSizes(const MicrokernelFamily &family, const Microkernel &kernel,
             const MicrokernelBenchOptions &options) {
  std::map<std::string, int64_t> sizes;
  for (size_t i = 0; i < family.unrolled.size(); ++i) {
    const std::string &dim = family.unrolled[i];
    int64_t size = kernel.factors.at(i);
    if (dim == family.vectorDim)
      size *= options.vectorWidth;
    sizes[dim] = size;
  }
  sizes[family.reuseDim] = sizes.count(family.reuseDim)
                               ? sizes[family.reuseDim] * options.reuseCount
                               : options.reuseCount;
  return sizes;
}

/// The family under its own dimension names: one bound to a spec
/// (FamilyBinding.h) may carry the spec's, but its microkernels are
/// measured on the family's own problem.
const MicrokernelFamily &ownFamily(const MicrokernelFamily &family) {
  const MicrokernelFamily *own = MicrokernelFamily::find(family.name);
  if (!own || !own->benchProblem)
    throw Error("no microkernel problem for the family '" + family.name + "'",
                ErrorCode::InvalidArgument);
  return *own;
}

} // namespace

spec::Spec microkernelProblem(const MicrokernelFamily &family,
                              const Microkernel &kernel,
                              const MicrokernelBenchOptions &options) {
  const MicrokernelFamily &own = ownFamily(family);
  return own.benchProblem(problemSizes(own, kernel, options));
}

scheme::Scheme microkernelScheme(const MicrokernelFamily &family,
                                 const Microkernel &kernel,
                                 const MicrokernelBenchOptions &options) {
  const MicrokernelFamily &own = ownFamily(family);
  scheme::Scheme scheme;
  scheme.atoms.push_back(scheme::TAtom{options.reuseCount, own.reuseDim});
  for (scheme::Atom &atom : kernel.atoms(own))
    scheme.atoms.push_back(std::move(atom));
  return scheme;
}

PreparedMicrokernel prepareMicrokernel(const MicrokernelFamily &family,
                                       const Microkernel &kernel,
                                       const MicrokernelBenchOptions &options) {
  spec::Spec problem = microkernelProblem(family, kernel, options);
  PreparedMicrokernel prepared{
      kernel,
      jit::compileKernel(problem, microkernelScheme(family, kernel, options)),
      // A NaN output shows a kernel that never writes some accumulator.
      std::make_unique<measure::TensorBuffers>(
          problem, 42, std::numeric_limits<float>::quiet_NaN())};
  prepared.compiled.run(prepared.buffers->pointers());

  // A register tile's output has at most a few hundred elements, so every
  // one is checked: the reference costs a few milliseconds, less than the
  // compilation.
  spec::CheckResult result =
      spec::checkOutput(problem, prepared.buffers->constPointers());
  if (!result.ok)
    throw Error("microkernel " + kernel.str(family) +
                    " computes a wrong result: " + result.report(problem),
                ErrorCode::Internal);
  return prepared;
}

double measurePercentOfPeak(const PreparedMicrokernel &prepared,
                            const measure::MeasureOptions &options,
                            double peakFlops) {
  measure::Measurement timing = measure::measure(
      [&] { prepared.compiled.run(prepared.buffers->pointers()); }, options);
  double flops = static_cast<double>(prepared.compiled.spec().flops()) /
                 timing.medianSeconds;
  return 100 * flops / peakFlops;
}

} // namespace ttile::search
