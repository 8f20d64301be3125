//===- Measure/PeakProbe.cpp - The machine's measured FP32 peak -----------===//

#include "Measure/PeakProbe.h"

#include "Measure/ProbeModule.h"
#include "Measure/Timer.h"
#include "Support/Host.h"
#include "Support/Logging.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace ttile::measure {
namespace {

constexpr const char *kProbeName = "ttile_peak_probe";

/// About 0.2 ms per call at 250 GFLOP/s: long enough that the call and the
/// loop exit are noise, short enough for the protocol to batch calls.
constexpr int64_t kIterationsPerCall = 1 << 16;

/// Two FMA units of latency 4 (Skylake-X, Zen 4/5) need 8 independent
/// chains; 24 leave room for deeper pipelines and still fit, with the two
/// operands, in 32 AVX-512 registers. With 16 registers, 12 chains.
int accumulatorCount() { return std::min(24, host().vectorRegisters - 4); }

/// void probe(args): args[0] -> i64 iterations, args[1] -> float {x, y},
/// args[2] -> float result. Each iteration updates every accumulator with
/// acc = acc * x + y; x and y are loaded at run time so that nothing folds,
/// and the accumulators' sum is stored so that nothing is dead. With
/// x = 0.999 and y = 0.001 the values converge to 1: no overflow and no
/// denormals to slow the FMAs down. Leaves the module finished.
void emitProbe(ProbeModule &probe) {
  llvm::IRBuilder<> &builder = probe.builder();
  llvm::Type *floatType = builder.getFloatTy();
  llvm::FixedVectorType *vectorType = probe.vectorType();
  unsigned lanes = vectorType->getNumElements();

  llvm::Value *iterations =
      builder.CreateLoad(builder.getInt64Ty(), probe.operand(0), "iterations");
  llvm::Value *inputs = probe.operand(1);
  llvm::Value *result = probe.operand(2);
  llvm::Value *x = builder.CreateVectorSplat(
      lanes, builder.CreateLoad(floatType, inputs), "x");
  llvm::Value *y = builder.CreateVectorSplat(
      lanes,
      builder.CreateLoad(
          floatType, builder.CreateConstInBoundsGEP1_64(floatType, inputs, 1)),
      "y");

  // Distinct starting values, so that no pass can prove two chains equal
  // and merge them.
  std::vector<llvm::Constant *> initial;
  for (int chain = 0; chain < accumulatorCount(); ++chain) {
    std::vector<llvm::Constant *> start;
    for (unsigned lane = 0; lane < lanes; ++lane)
      start.push_back(llvm::ConstantFP::get(
          floatType, static_cast<double>(chain) * lanes + lane));
    initial.push_back(llvm::ConstantVector::get(start));
  }
  // fmuladd becomes one vfmadd where the target has FMA.
  probe.emitAccumulatingLoop(
      iterations, initial,
      [&](unsigned, llvm::Value *accumulator, llvm::Value *) {
        return builder.CreateIntrinsic(llvm::Intrinsic::fmuladd, {vectorType},
                                       {accumulator, x, y});
      },
      result);
  probe.finish();
}

PeakInfo runProbe() {
  PeakKernel kernel;
  PeakInfo peak;
  peak.lanes = kernel.lanes();
  peak.accumulators = kernel.accumulators();
  peak.iterationsPerCall = kernel.iterationsPerCall();

  // Many short batches and the fastest of them: nothing but interference
  // (other processes, interrupts, the hypervisor) ever slows a loop that
  // touches no memory, so the fastest batch is the machine's rate and the
  // median would measure the load. Batches of about 2 ms fit between
  // preemptions even on a loaded machine.
  MeasureOptions options;
  options.minSeconds = 0.1;
  options.repetitions = 50;
  options.maxRemeasures = 0;
  peak.measurement = measure([&] { kernel.run(); }, options);

  double flopsPerCall = kernel.flopsPerCall();
  peak.flops = flopsPerCall / peak.measurement.minSeconds;
  // PAPI counts the thread's own core cycles, which pause while it is
  // descheduled, so their median is sound; TSC ticks run on, so the fastest
  // batch's rate is converted at the TSC's frequency instead.
  peak.coreCycles =
      CounterSet::forThisThread() && peak.measurement.cyclesPerCall;
  if (peak.coreCycles)
    peak.flopsPerCycle =
        flopsPerCall / static_cast<double>(*peak.measurement.cyclesPerCall);
  else if (TscClock::invariant())
    peak.flopsPerCycle = peak.flops / TscClock::ticksPerSecond();
  peak.clock = clockDescription();
  log().info("measured FP32 peak of one thread: {:.1f} GFLOP/s "
             "({} x {} lanes; median {:.1f} GFLOP/s, spread {:.1f}%)",
             peak.flops * 1e-9, peak.accumulators, peak.lanes,
             flopsPerCall / peak.measurement.medianSeconds * 1e-9,
             100 * peak.measurement.spread);
  return peak;
}

} // namespace

/// The compiled probe and its operands (see emitProbe). run() writes
/// `result`: one thread at a time calls it.
struct PeakKernel::Impl {
  std::shared_ptr<jit::JITKernel> kernel;
  int64_t iterations = kIterationsPerCall;
  float inputs[2] = {0.999f, 0.001f};
  float result = 0;
  void *arguments[3] = {&iterations, inputs, &result};
};

PeakKernel::PeakKernel() : impl_(std::make_unique<Impl>()) {
  ProbeModule probe(kProbeName);
  emitProbe(probe);
  impl_->kernel = probe.compile();
}
PeakKernel::~PeakKernel() = default;
PeakKernel::PeakKernel(PeakKernel &&) noexcept = default;

void PeakKernel::run() const { impl_->kernel->entry()(impl_->arguments); }
double PeakKernel::flopsPerCall() const {
  return 2.0 * static_cast<double>(kIterationsPerCall) * accumulators() *
         lanes();
}
int PeakKernel::lanes() const { return host().vectorWidth; }
int PeakKernel::accumulators() const { return accumulatorCount(); }
int64_t PeakKernel::iterationsPerCall() const { return kIterationsPerCall; }

const PeakInfo &measuredPeak() {
  static const PeakInfo peak = runProbe();
  return peak;
}

double measuredPeakFlops() { return measuredPeak().flops; }

std::string peakProbeAssembly() {
  ProbeModule probe(kProbeName);
  emitProbe(probe);
  return probe.assembly();
}

} // namespace ttile::measure
