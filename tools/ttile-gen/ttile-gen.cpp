//===- ttile-gen.cpp - Show the code ttile generates for a scheme ---------===//
//
//   ttile-gen PROBLEM [--emit ir|opt|asm|none] [--check] [--measure]
//             [--repeat N] [--no-hoist] SCHEME
//
// Lowers a scheme for a problem to LLVM IR and JIT-compiles it in-process,
// like llc: --emit ir prints the IR as lowered, --emit opt (the default)
// after the O3 pipeline, --emit asm the host assembly. --check also runs the
// kernel on random data and compares it with the reference executor;
// --measure times it with the measurement protocol and reports GFLOP/s and
// the percentage of the FP32 peak measured in the same process; with
// --repeat N it compiles and measures N times and reports the medians.
// Exit status: 0 on success, 1 for an invalid scheme or a failed check, 2 on
// usage errors.
//
//===----------------------------------------------------------------------===//

#include "ProblemOptions.h"
#include "ToolMain.h"

#include "JIT/Kernel.h"
#include "Measure/Benchmark.h"
#include "Measure/PeakProbe.h"
#include "Measure/TensorBuffers.h"
#include "Measure/Timer.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

using namespace ttile;

namespace {

struct Options {
  tools::ProblemOptions problem;
  std::string emit = "opt";
  bool check = false;
  bool measure = false;
  int repeat = 1;
  bool noHoist = false;
  std::string scheme;
};

/// Runs the kernel on random inputs and reports against the reference.
bool checkKernel(const jit::Kernel &kernel) {
  const spec::Spec &spec = kernel.spec();
  measure::TensorBuffers buffers(spec, 42);
  kernel.run(measure::KernelArguments(kernel, buffers).pointers());
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  std::cerr << "check: " << result.report(spec) << "\n";
  return result.ok;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle]
                           : (values[middle - 1] + values[middle]) / 2;
}

/// Compiles `repeat` times and times each kernel, hot cache; reports the
/// medians against the peak measured in this process.
void measureKernel(const spec::Spec &spec, const scheme::Scheme &scheme,
                   const jit::CompileOptions &compile, int repeat) {
  measure::TensorBuffers buffers(spec, 42);
  std::vector<double> compileSeconds, runSeconds;
  for (int i = 0; i < repeat; ++i) {
    jit::Kernel kernel = jit::compileKernel(spec, scheme, compile);
    measure::KernelArguments arguments(kernel, buffers);
    measure::Measurement timing =
        measure::measure([&] { kernel.run(arguments.pointers()); });
    compileSeconds.push_back(kernel.compileSeconds());
    runSeconds.push_back(timing.medianSeconds);
  }
  double peak = measure::measuredPeakFlops();
  double flops = static_cast<double>(spec.flops()) / median(runSeconds);
  std::fprintf(stderr,
               "measure: %d run%s; median compile %.1f ms; median %.3f us; "
               "%.1f GFLOP/s = %.1f%% of the measured peak %.1f GFLOP/s "
               "(%s)\n",
               repeat, repeat == 1 ? "" : "s", median(compileSeconds) * 1e3,
               median(runSeconds) * 1e6, flops * 1e-9, 100 * flops / peak,
               peak * 1e-9, measure::clockDescription().c_str());
}

int run(const Options &options) {
  std::optional<spec::Spec> spec = options.problem.spec();
  if (!spec)
    tools::usageError("--conv", "a problem is required (--conv, --conv-full, "
                                "--matmul or --einsum)");
  jit::CompileOptions compile;
  compile.inferHoist = !options.noHoist;
  compile.keepIR = options.emit == "ir";
  compile.keepOptimizedIR = options.emit == "opt";
  compile.keepAssembly = options.emit == "asm";
  jit::Kernel kernel =
      jit::compileKernel(*spec, scheme::parseScheme(options.scheme), compile);

  std::cout << "; " << spec->str() << "\n; "
            << scheme::printScheme(kernel.scheme()) << "\n";
  if (compile.keepIR)
    std::cout << kernel.ir();
  else if (compile.keepOptimizedIR)
    std::cout << kernel.optimizedIR();
  else if (compile.keepAssembly)
    std::cout << kernel.assembly();
  if (options.check && !checkKernel(kernel))
    return tools::kExitFailure;
  if (options.measure)
    measureKernel(*spec, kernel.scheme(), compile, options.repeat);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Lower a ttile scheme to LLVM IR or assembly, JIT-compiled "
               "in-process.",
               "ttile-gen");
  Options options;
  options.problem.addTo(app);
  app.add_option("--emit", options.emit,
                 "ir: as lowered; opt: after O3 (default); asm: assembly; "
                 "none")
      ->check(CLI::IsMember({"ir", "opt", "asm", "none"}));
  app.add_flag("--check", options.check,
               "run on random data and compare with the reference");
  app.add_flag("--measure", options.measure,
               "time the kernel and report GFLOP/s and % of measured peak");
  app.add_option("--repeat", options.repeat,
                 "with --measure: compile and measure this many times")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--no-hoist", options.noHoist,
               "do not insert the Hoist of the output accumulators");
  app.add_option("scheme", options.scheme, "the scheme")->required();

  return tools::runTool(app, argc, argv, [&] { return run(options); });
}
