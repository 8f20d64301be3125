//===- ttile-gen.cpp - Show the code ttile generates for a scheme ---------===//
//
//   ttile-gen PROBLEM [--emit ir|opt|asm|none] [--check] [--measure]
//             [--repeat N] [--no-hoist] [--offset TENSOR=BYTES]... SCHEME...
//
// Lowers a scheme for a problem to LLVM IR and JIT-compiles it in-process,
// like llc: --emit ir prints the IR as lowered, --emit opt (the default)
// after the O3 pipeline, --emit asm the host assembly. --check also runs the
// kernel on random data and compares it with the reference executor;
// --measure times it with the measurement protocol and reports GFLOP/s and
// the percentage of the FP32 peak measured in the same process; with
// --repeat N it compiles and measures N times and reports the medians.
// Several schemes are lowered in turn, and --measure times their kernels
// against each other, alternately (measureAlternately in Benchmark.h), on
// the same buffers: the way to compare schemes on a shared machine.
// --offset I=16 starts tensor I's buffer 16 bytes past a 64-byte line, as
// std::vector's would, for --check and --measure (`all=16`: every tensor's
// but the laid-out constants, which ttile aligns itself).
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
#include <charconv>
#include <cstdio>
#include <functional>
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
  /// "TENSOR=BYTES" or "all=BYTES".
  std::vector<std::string> offsets;
  std::vector<std::string> schemes;
};

/// Where each tensor's buffer starts past a 64-byte line, from --offset.
std::vector<size_t> bufferOffsets(const spec::Spec &spec,
                                  const std::vector<std::string> &offsets) {
  std::vector<size_t> bytes(spec.tensors.size(), 0);
  for (const std::string &text : offsets) {
    size_t equals = text.find('=');
    if (equals == std::string::npos)
      tools::usageError("--offset", "expected TENSOR=BYTES, got '" + text + "'");
    std::string name = text.substr(0, equals);
    std::string_view number = std::string_view(text).substr(equals + 1);
    size_t value = 0;
    auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() ||
        value % sizeof(float) != 0 || value >= 64)
      tools::usageError("--offset", "'" + std::string(number) +
                                        "' is not a multiple of 4 below 64");
    if (name == "all") {
      std::fill(bytes.begin(), bytes.end(), value);
    } else if (std::optional<int> tensor = spec.findTensor(name)) {
      bytes[static_cast<size_t>(*tensor)] = value;
    } else {
      tools::usageError("--offset", "no tensor " + name + " in " + spec.str());
    }
  }
  return bytes;
}

/// Runs the kernel on random inputs and reports against the reference.
bool checkKernel(const jit::Kernel &kernel,
                 const std::vector<size_t> &offsets) {
  const spec::Spec &spec = kernel.spec();
  measure::TensorBuffers buffers(spec, 42, 0, offsets);
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

/// Compiles every scheme `repeat` times and times each compilation's
/// kernels against each other, hot cache; reports each scheme's medians
/// against the peak measured in this process.
void measureKernels(const spec::Spec &spec,
                    const std::vector<scheme::Scheme> &schemes,
                    const jit::CompileOptions &compile, int repeat,
                    const std::vector<size_t> &offsets) {
  measure::TensorBuffers buffers(spec, 42, 0, offsets);
  std::vector<std::vector<double>> compileSeconds(schemes.size()),
      runSeconds(schemes.size());
  for (int i = 0; i < repeat; ++i) {
    std::vector<jit::Kernel> kernels;
    std::vector<measure::KernelArguments> arguments;
    for (const scheme::Scheme &scheme : schemes) {
      kernels.push_back(jit::compileKernel(spec, scheme, compile));
      arguments.emplace_back(kernels.back(), buffers);
    }
    std::vector<std::function<void()>> runs;
    for (size_t k = 0; k < kernels.size(); ++k)
      runs.push_back([&, k] { kernels[k].run(arguments[k].pointers()); });
    std::vector<measure::Measurement> timings =
        measure::measureAlternately(runs);
    for (size_t k = 0; k < kernels.size(); ++k) {
      compileSeconds[k].push_back(kernels[k].compileSeconds());
      runSeconds[k].push_back(timings[k].medianSeconds);
    }
  }
  double peak = measure::measuredPeakFlops();
  for (size_t k = 0; k < schemes.size(); ++k) {
    double flops = static_cast<double>(spec.flops()) / median(runSeconds[k]);
    std::string which =
        schemes.size() == 1 ? "" : " scheme " + std::to_string(k + 1);
    std::fprintf(stderr,
                 "measure%s: %d run%s; median compile %.1f ms; median %.3f "
                 "us; %.1f GFLOP/s = %.1f%% of the measured peak %.1f "
                 "GFLOP/s (%s)\n",
                 which.c_str(), repeat, repeat == 1 ? "" : "s",
                 median(compileSeconds[k]) * 1e3, median(runSeconds[k]) * 1e6,
                 flops * 1e-9, 100 * flops / peak, peak * 1e-9,
                 measure::clockDescription().c_str());
  }
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
  std::vector<size_t> offsets = bufferOffsets(*spec, options.offsets);
  std::vector<scheme::Scheme> schemes;
  for (const std::string &text : options.schemes) {
    jit::Kernel kernel =
        jit::compileKernel(*spec, scheme::parseScheme(text), compile);
    std::cout << "; " << spec->str() << "\n; "
              << scheme::printScheme(kernel.scheme()) << "\n";
    if (compile.keepIR)
      std::cout << kernel.ir();
    else if (compile.keepOptimizedIR)
      std::cout << kernel.optimizedIR();
    else if (compile.keepAssembly)
      std::cout << kernel.assembly();
    if (options.check && !checkKernel(kernel, offsets))
      return tools::kExitFailure;
    schemes.push_back(kernel.scheme());
  }
  if (options.measure)
    measureKernels(*spec, schemes, compile, options.repeat, offsets);
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
  app.add_option("--offset", options.offsets,
                 "TENSOR=BYTES (or all=BYTES): start that tensor's buffer "
                 "BYTES past a 64-byte line, for --check and --measure; "
                 "repeatable");
  app.add_option("schemes", options.schemes,
                 "the scheme; with --measure, several are timed alternately")
      ->required();

  return tools::runTool(app, argc, argv, [&] { return run(options); });
}
