//===- ttile-gen.cpp - Show the code ttile generates for a scheme ---------===//
//
//   ttile-gen PROBLEM [--emit ir|opt|asm|none] [--check] [--measure]
//             [--no-hoist] SCHEME
//
// Lowers a scheme for a problem to LLVM IR and JIT-compiles it in-process,
// like llc: --emit ir prints the IR as lowered, --emit opt (the default)
// after the O3 pipeline, --emit asm the host assembly. --check also runs the
// kernel on random data and compares it with the reference executor;
// --measure times it with the measurement protocol and reports GFLOP/s and
// the percentage of the FP32 peak measured in the same process.
// Exit status: 0 on success, 1 for an invalid scheme or a failed check, 2 on
// usage errors.
//
//===----------------------------------------------------------------------===//

#include "ProblemOptions.h"

#include "JIT/Kernel.h"
#include "Measure/Benchmark.h"
#include "Measure/PeakProbe.h"
#include "Measure/TensorBuffers.h"
#include "Measure/Timer.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

using namespace ttile;

namespace {

constexpr int ExitFailure = 1;
constexpr int ExitUsage = 2;

struct Options {
  tools::ProblemOptions problem;
  std::string emit = "opt";
  bool check = false;
  bool measure = false;
  bool noHoist = false;
  std::string scheme;
};

/// Runs the kernel on random inputs and reports against the reference.
bool checkKernel(const jit::Kernel &kernel) {
  const spec::Spec &spec = kernel.spec();
  measure::TensorBuffers buffers(spec, 42);
  kernel.run(buffers.pointers());
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  std::cerr << "check: " << result.report(spec) << "\n";
  return result.ok;
}

/// Times the kernel, hot cache, and reports it against the measured peak.
void measureKernel(const jit::Kernel &kernel) {
  measure::TensorBuffers buffers(kernel.spec(), 42);
  measure::Measurement timing =
      measure::measure([&] { kernel.run(buffers.pointers()); });
  double peak = measure::measuredPeakFlops();
  double flops = static_cast<double>(kernel.spec().flops()) / timing.medianSeconds;
  std::fprintf(stderr,
               "measure: compile %.1f ms; median %.3f us (spread %.1f%%); "
               "%.1f GFLOP/s = %.1f%% of the measured peak %.1f GFLOP/s "
               "(%s)\n",
               kernel.compileSeconds() * 1e3, timing.medianSeconds * 1e6,
               timing.spread * 100, flops * 1e-9, 100 * flops / peak,
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
    return ExitFailure;
  if (options.measure)
    measureKernel(kernel);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Lower a ttile scheme to LLVM IR or assembly, JIT-compiled "
               "in-process.",
               "ttile-gen");
  app.failure_message([](const CLI::App *, const CLI::Error &error) {
    return "ttile-gen: usage error: " + std::string(error.what()) +
           "\nRun with --help for more information.\n";
  });
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
  app.add_flag("--no-hoist", options.noHoist,
               "do not insert the Hoist of the output accumulators");
  app.add_option("scheme", options.scheme, "the scheme")->required();

  try {
    app.parse(argc, argv);
    return run(options);
  } catch (const CLI::ParseError &error) {
    return app.exit(error) == 0 ? 0 : ExitUsage;
  } catch (const Error &error) {
    std::cerr << "ttile-gen: error: " << error.what() << "\n";
    return ExitFailure;
  }
}
