//===- Search/MicrokernelBench.cpp - Measure one microkernel --------------===//

#include "Search/MicrokernelBench.h"

#include "Spec/Check.h"
#include "Spec/SpecBuilders.h"
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

/// The size of every unrolled dimension on the microkernel's own problem.
std::map<std::string, int64_t>
problemSizes(const MicrokernelFamily &family, const Microkernel &kernel,
             const MicrokernelBenchOptions &options) {
  std::map<std::string, int64_t> sizes;
  for (size_t i = 0; i < family.unrolled.size(); ++i) {
    const std::string &dim = family.unrolled[i];
    int64_t size = kernel.factors.at(i);
    if (dim == family.vectorDim)
      size *= options.vectorWidth;
    if (dim == family.reuseDim)
      size *= options.reuseCount;
    sizes[dim] = size;
  }
  return sizes;
}

} // namespace

spec::Spec microkernelProblem(const MicrokernelFamily &family,
                              const Microkernel &kernel,
                              const MicrokernelBenchOptions &options) {
  std::map<std::string, int64_t> size = problemSizes(family, kernel, options);
  if (family.name == "conv2d") {
    spec::ConvShape shape;
    shape.K = size.at("k");
    shape.C = size.at("c");
    shape.outH = size.at("h");
    shape.outW = size.at("w");
    shape.R = size.at("r");
    shape.S = size.at("s");
    return spec::conv2d(shape);
  }
  if (family.name == "depthwise") {
    spec::ConvShape shape;
    shape.K = shape.C = shape.groups = size.at("g");
    shape.outW = size.at("w");
    shape.S = size.at("s");
    // The reuse loop runs over the window's rows, which no U unrolls.
    shape.R = options.reuseCount;
    return spec::conv2d(shape);
  }
  if (family.name == "matmul")
    return spec::matmul(size.at("i"), size.at("j"), size.at("k"));
  throw Error("no microkernel problem for the family '" + family.name + "'",
              ErrorCode::InvalidArgument);
}

scheme::Scheme microkernelScheme(const MicrokernelFamily &family,
                                 const Microkernel &kernel,
                                 const MicrokernelBenchOptions &options) {
  scheme::Scheme scheme;
  scheme.atoms.push_back(scheme::TAtom{options.reuseCount, family.reuseDim});
  for (scheme::Atom &atom : kernel.atoms(family))
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
