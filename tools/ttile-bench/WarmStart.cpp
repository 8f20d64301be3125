//===- ttile-bench/WarmStart.cpp - Starting from the cache ----------------===//

#include "WarmStart.h"

#include "Support/Statistics.h"
#include "Support/Stopwatch.h"

#include <cstdio>
#include <vector>

namespace ttile::bench {
namespace {

Conv2D construct(const Conv2DParams &params) { return Conv2D(params); }
MatMul construct(const MatMulParams &params) { return MatMul(params); }
Contraction construct(const ContractionParams &params) {
  return Contraction(params);
}
ContractionChain construct(const ContractionChainParams &params) {
  return ContractionChain(params);
}

/// The buffers of one call: the operands, then the output.
using Buffers = std::vector<std::vector<float>>;

Buffers buffersOf(std::vector<int64_t> elements) {
  Buffers buffers;
  for (size_t i = 0; i < elements.size(); ++i)
    // Small values: no overflow whatever the sums; the output zeroed.
    buffers.emplace_back(static_cast<size_t>(elements[i]),
                         i + 1 < elements.size() ? 0.25f : 0.0f);
  return buffers;
}

Buffers buffersOf(const Conv2D &conv) {
  return buffersOf(
      {conv.inputElements(), conv.weightElements(), conv.outputElements()});
}
template <typename Op> Buffers buffersOf(const Op &op) {
  return buffersOf({op.aElements(), op.bElements(), op.cElements()});
}
Buffers buffersOf(const ContractionChain &chain) {
  return buffersOf({chain.operandElements(0), chain.operandElements(1),
                    chain.operandElements(2), chain.outputElements()});
}

void runOnce(const Conv2D &conv, Buffers &b) {
  conv.run(b[0].data(), b[1].data(), nullptr, b[2].data());
}
void runOnce(const MatMul &matmul, Buffers &b) {
  matmul.run(b[0].data(), b[1].data(), nullptr, b[2].data());
}
void runOnce(const Contraction &contraction, Buffers &b) {
  contraction.run(b[0].data(), b[1].data(), b[2].data());
}
void runOnce(const ContractionChain &chain, Buffers &b) {
  chain.run(b[0].data(), b[1].data(), b[2].data(), b[3].data());
}

} // namespace

void printWarmStartHeader() {
  std::printf("%-20s cache %10s %12s %10s %10s %10s   (milliseconds)\n",
              "problem", "construct", "load+link", "first run", "kernel",
              "overhead");
}

bool warmStart(const WarmStartProblem &problem, int runs, int trials) {
  TuneOptions tune;
  tune.trials = trials;
  return std::visit(
      [&](const auto &params) {
        Stopwatch constructing;
        auto op = construct(params);
        double constructMs = constructing.milliseconds();

        Stopwatch loading;
        op.tune(tune);
        double tuneMs = loading.milliseconds();
        if (!op.tuneInfo().cacheHit) {
          std::printf("%-20s miss: tuned in %.1f s; run again to measure it "
                      "warm\n",
                      problem.name.c_str(), tuneMs / 1e3);
          return false;
        }

        Buffers buffers = buffersOf(op);
        Stopwatch firstRun;
        runOnce(op, buffers);
        double firstRunMs = firstRun.milliseconds();
        std::vector<double> steady;
        for (int i = 0; i < runs; ++i) {
          Stopwatch call;
          runOnce(op, buffers);
          steady.push_back(call.milliseconds());
        }
        double kernelMs = median(steady);
        double overheadMs = constructMs + tuneMs + firstRunMs - kernelMs;
        std::printf("%-20s hit   %10.2f %12.2f %10.2f %10.2f %10.2f\n",
                    problem.name.c_str(), constructMs, tuneMs, firstRunMs,
                    kernelMs, overheadMs);
        return true;
      },
      problem.params);
}

} // namespace ttile::bench
