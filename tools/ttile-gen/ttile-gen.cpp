//===- ttile-gen.cpp - Show the code ttile generates for a scheme ---------===//
//
//   ttile-gen PROBLEM [--emit ir|opt|asm] [--check] [--no-hoist] SCHEME
//
// Lowers a scheme for a problem to LLVM IR and JIT-compiles it in-process,
// like llc: --emit ir prints the IR as lowered, --emit opt (the default)
// after the O3 pipeline, --emit asm the host assembly. --check also runs the
// kernel on random data and compares it with the reference executor.
// Exit status: 0 on success, 1 for an invalid scheme or a failed check, 2 on
// usage errors.
//
//===----------------------------------------------------------------------===//

#include "ProblemOptions.h"

#include "JIT/Kernel.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <random>
#include <vector>

using namespace ttile;

namespace {

constexpr int ExitFailure = 1;
constexpr int ExitUsage = 2;

struct Options {
  tools::ProblemOptions problem;
  std::string emit = "opt";
  bool check = false;
  bool noHoist = false;
  std::string scheme;
};

/// Runs the kernel on random inputs and reports against the reference.
bool checkKernel(const jit::Kernel &kernel) {
  const spec::Spec &spec = kernel.spec();
  std::mt19937_64 random(42);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<std::vector<float>> storage;
  std::vector<float *> buffers;
  for (const spec::Tensor &tensor : spec.tensors) {
    storage.emplace_back(static_cast<size_t>(tensor.numElements()));
    for (float &element : storage.back())
      element = value(random);
    buffers.push_back(storage.back().data());
  }
  kernel.run(buffers);
  std::vector<const float *> constBuffers(buffers.begin(), buffers.end());
  spec::CheckResult result = spec::checkOutput(spec, constBuffers);
  std::cerr << "check: " << result.report(spec) << "\n";
  return result.ok;
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
  else
    std::cout << kernel.assembly();
  return options.check && !checkKernel(kernel) ? ExitFailure : 0;
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
                 "ir: as lowered; opt: after O3 (default); asm: assembly")
      ->check(CLI::IsMember({"ir", "opt", "asm"}));
  app.add_flag("--check", options.check,
               "run on random data and compare with the reference");
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
