//===- ttile-gen.cpp - Show the code ttile generates for a scheme ---------===//
//
//   ttile-gen PROBLEM [--emit ir|opt|asm|none] [--check] [--measure]
//             [--repeat N] [--caches hot|cold|cold-output] [--no-hoist]
//             [--offset PLACEMENT]... SCHEME...
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
// --offset places the buffers for --check and --measure: `O=16` starts
// tensor O's 16 bytes past a 64-byte line, as std::vector's would, `all=16`
// every tensor's (but the laid-out constants, which ttile aligns itself),
// `all=16,W=0` every one's but W's. Each --offset is one placement, and
// --measure times every scheme on every placement against each other: the
// fair way to see what a placement costs.
// --caches sets the state the caches are in at every timed call: hot (the
// default), every call on buffers the calls before left in them, as a
// benchmark's loop runs; cold, every call after flushCaches() (Benchmark.h:
// no tensor in any cache); cold-output, every call writing its output to
// memory the caches no longer hold, the caches full of other writes, the
// inputs in them (Measure/ColdOutputs.h): as a network's layer runs. Its
// outputs start on a 64-byte line, whatever --offset says of the output's.
// Exit status: 0 on success, 1 for an invalid scheme or a failed check, 2 on
// usage errors.
//
//===----------------------------------------------------------------------===//

#include "ProblemOptions.h"
#include "ToolMain.h"

#include "JIT/Kernel.h"
#include "Measure/Benchmark.h"
#include "Measure/ColdOutputs.h"
#include "Measure/PeakProbe.h"
#include "Measure/TensorBuffers.h"
#include "Measure/Timer.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "Support/Statistics.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <span>

using namespace ttile;

namespace {

struct Options {
  tools::ProblemOptions problem;
  std::string emit = "opt";
  bool check = false;
  bool measure = false;
  int repeat = 1;
  std::string caches = "hot";
  bool noHoist = false;
  /// Placements of the buffers: "TENSOR=BYTES,..." ("all" for every one).
  std::vector<std::string> offsets;
  std::vector<std::string> schemes;
};

/// Where each tensor's buffer starts past a 64-byte line.
struct Placement {
  std::string name; ///< As given to --offset; "aligned" without one.
  std::vector<size_t> offsetBytes;
};

std::vector<size_t> parsePlacement(const spec::Spec &spec,
                                   std::string_view placement) {
  std::vector<size_t> bytes(spec.tensors.size(), 0);
  while (!placement.empty()) {
    std::string_view item = placement.substr(0, placement.find(','));
    placement.remove_prefix(std::min(placement.size(), item.size() + 1));
    std::string text(item);
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

std::vector<Placement> placements(const spec::Spec &spec,
                                  const std::vector<std::string> &offsets) {
  if (offsets.empty())
    return {{"aligned", std::vector<size_t>(spec.tensors.size(), 0)}};
  std::vector<Placement> all;
  for (const std::string &text : offsets)
    all.push_back({text, parsePlacement(spec, text)});
  return all;
}

/// Runs the kernel on random inputs and reports against the reference.
/// Runs the kernel on random inputs, on each placement of the buffers, and
/// reports against the reference.
bool checkKernel(const jit::Kernel &kernel,
                 const std::vector<Placement> &placements) {
  const spec::Spec &spec = kernel.spec();
  bool ok = true;
  for (const Placement &placement : placements) {
    measure::TensorBuffers buffers(spec, 42, 0, placement.offsetBytes);
    kernel.run(measure::KernelArguments(kernel, buffers).pointers());
    spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
    std::cerr << "check"
              << (placements.size() == 1 ? "" : " (" + placement.name + ")")
              << ": " << result.report(spec) << "\n";
    ok &= result.ok;
  }
  return ok;
}

/// Compiles every scheme `repeat` times and times each compilation's
/// kernels on every placement against each other, with the caches in the
/// state `caches` names (--caches); reports the medians of each (scheme,
/// placement) against the peak measured in this process.
void measureKernels(const spec::Spec &spec,
                    const std::vector<scheme::Scheme> &schemes,
                    const jit::CompileOptions &compile, int repeat,
                    const std::vector<Placement> &placements,
                    const std::string &caches) {
  measure::MeasureOptions protocol;
  protocol.coldCache = caches == "cold";
  std::optional<measure::ColdOutputs> coldOutputs;
  if (caches == "cold-output")
    coldOutputs.emplace(spec.output().numElements() *
                        static_cast<int64_t>(sizeof(float)));
  std::vector<measure::TensorBuffers> buffers;
  for (const Placement &placement : placements)
    buffers.emplace_back(spec, 42, 0, placement.offsetBytes);
  // Kernel k on placement p is run k * placements.size() + p.
  const size_t runCount = schemes.size() * placements.size();
  std::vector<std::vector<double>> compileSeconds(runCount),
      runSeconds(runCount);
  for (int i = 0; i < repeat; ++i) {
    std::vector<jit::Kernel> kernels;
    std::vector<measure::KernelArguments> arguments;
    for (const scheme::Scheme &scheme : schemes) {
      kernels.push_back(jit::compileKernel(spec, scheme, compile));
      for (const measure::TensorBuffers &placed : buffers)
        arguments.emplace_back(kernels.back(), placed);
    }
    std::vector<std::function<void()>> runs;
    for (size_t r = 0; r < runCount; ++r)
      runs.push_back([&, r] {
        std::span<float *const> pointers = arguments[r].pointers();
        kernels[r / placements.size()].run(
            coldOutputs ? coldOutputs->arguments(pointers) : pointers);
      });
    std::vector<measure::Measurement> timings =
        measure::measureAlternately(runs, protocol);
    for (size_t r = 0; r < runCount; ++r) {
      compileSeconds[r].push_back(
          kernels[r / placements.size()].compileSeconds());
      runSeconds[r].push_back(timings[r].medianSeconds);
    }
  }
  double peak = measure::measuredPeakFlops();
  for (size_t r = 0; r < runCount; ++r) {
    double flops = static_cast<double>(spec.flops()) / median(runSeconds[r]);
    std::string which =
        schemes.size() == 1
            ? ""
            : " scheme " + std::to_string(r / placements.size() + 1);
    if (placements.size() > 1)
      which += " (" + placements[r % placements.size()].name + ")";
    std::string state = caches == "hot" ? "" : ", " + caches + " caches";
    std::fprintf(stderr,
                 "measure%s: %d run%s%s; median compile %.1f ms; median %.3f "
                 "us; %.1f GFLOP/s = %.1f%% of the measured peak %.1f "
                 "GFLOP/s (%s)\n",
                 which.c_str(), repeat, repeat == 1 ? "" : "s", state.c_str(),
                 median(compileSeconds[r]) * 1e3, median(runSeconds[r]) * 1e6,
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
  std::vector<Placement> placed = placements(*spec, options.offsets);
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
    if (options.check && !checkKernel(kernel, placed))
      return tools::kExitFailure;
    schemes.push_back(kernel.scheme());
  }
  if (options.measure)
    measureKernels(*spec, schemes, compile, options.repeat, placed,
                   options.caches);
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
  app.add_option("--caches", options.caches,
                 "with --measure, the caches at every timed call: hot (the "
                 "buffers the calls before left there), cold (flushed), or "
                 "cold-output (the output out of them, as a network's layer "
                 "writes it, on a 64-byte line whatever --offset says)")
      ->check(CLI::IsMember({"hot", "cold", "cold-output"}))
      ->capture_default_str();
  app.add_flag("--no-hoist", options.noHoist,
               "do not insert the Hoist of the output accumulators");
  app.add_option("--offset", options.offsets,
                 "a placement of the buffers, TENSOR=BYTES,... (all=BYTES "
                 "for every tensor): each starts BYTES past a 64-byte line; "
                 "--check and --measure run on every placement given")
      ->allow_extra_args(false); // The schemes that follow are not offsets.
  app.add_option("schemes", options.schemes,
                 "the scheme; with --measure, several are timed alternately")
      ->required();

  return tools::runTool(app, argc, argv, [&] { return run(options); });
}
