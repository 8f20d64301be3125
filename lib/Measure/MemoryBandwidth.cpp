//===- Measure/MemoryBandwidth.cpp - Measured DRAM read bandwidth ---------===//

#include "Measure/MemoryBandwidth.h"

#include "Measure/AlignedBuffer.h"
#include "Measure/ProbeModule.h"
#include "Support/Host.h"
#include "Support/Logging.h"

#include <memory>
#include <vector>

namespace ttile::measure {
namespace {

/// Vectors summed per iteration, each into its own accumulator, so that
/// the adds' latency never limits the loads.
constexpr unsigned kUnroll = 8;

/// void sum(args): args[0] -> the data (64-byte aligned floats), args[1] ->
/// i64 iterations (kUnroll vectors each, at least one), args[2] -> float
/// result. The library is compiled for a generic x86-64; a C++ loop would
/// read with narrow loads and measure the core, not the memory.
void emitSum(ProbeModule &probe) {
  llvm::IRBuilder<> &builder = probe.builder();
  llvm::FixedVectorType *vectorType = probe.vectorType();

  llvm::Value *data = probe.operand(0);
  llvm::Value *iterations =
      builder.CreateLoad(builder.getInt64Ty(), probe.operand(1), "iterations");
  llvm::Value *result = probe.operand(2);

  std::vector<llvm::Constant *> initial(
      kUnroll, llvm::Constant::getNullValue(vectorType));
  probe.emitAccumulatingLoop(
      iterations, initial,
      [&](unsigned chain, llvm::Value *accumulator, llvm::Value *counter) {
        llvm::Value *index = builder.CreateAdd(
            builder.CreateMul(counter, builder.getInt64(kUnroll)),
            builder.getInt64(chain));
        llvm::Value *loaded = builder.CreateAlignedLoad(
            vectorType, builder.CreateInBoundsGEP(vectorType, data, index),
            llvm::Align(AlignedBuffer::kAlignment));
        return builder.CreateFAdd(accumulator, loaded);
      },
      result);
  probe.finish();
}

BandwidthInfo runProbe() {
  ProbeModule probe("ttile_bandwidth_probe");
  emitSum(probe);
  std::shared_ptr<jit::JITKernel> kernel = probe.compile();

  const int64_t floatsPerIteration = int64_t(kUnroll) * host().vectorWidth;
  int64_t iterations = 4 * host().dataCaches.back().bytes /
                       static_cast<int64_t>(sizeof(float)) / floatsPerIteration;
  AlignedBuffer buffer(static_cast<size_t>(iterations * floatsPerIteration));
  buffer.fill(1.0f);
  float result = 0;
  void *arguments[] = {buffer.data(), &iterations, &result};

  BandwidthInfo bandwidth;
  bandwidth.bufferBytes = static_cast<int64_t>(buffer.size() * sizeof(float));
  // A call streams the whole buffer, milliseconds: batches are a call or
  // two, and the fastest counts (see PeakProbe.h for why).
  MeasureOptions options;
  options.minSeconds = 0.05;
  options.repetitions = 10;
  options.maxRemeasures = 0;
  bandwidth.measurement = measure([&] { kernel->entry()(arguments); }, options);
  bandwidth.bytesPerSecond = static_cast<double>(bandwidth.bufferBytes) /
                             bandwidth.measurement.minSeconds;
  log().info("measured read bandwidth of one thread: {:.1f} GB/s "
             "(spread {:.1f}%)",
             bandwidth.bytesPerSecond * 1e-9,
             100 * bandwidth.measurement.spread);
  return bandwidth;
}

} // namespace

const BandwidthInfo &measuredBandwidth() {
  static const BandwidthInfo bandwidth = runProbe();
  return bandwidth;
}

double measuredBandwidthBytesPerSecond() {
  return measuredBandwidth().bytesPerSecond;
}

} // namespace ttile::measure
