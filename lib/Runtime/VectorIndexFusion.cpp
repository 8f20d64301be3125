//===- Runtime/VectorIndexFusion.cpp - One long vector index --------------===//

#include "Runtime/VectorIndexFusion.h"

#include "Measure/AlignedBuffer.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <cstring>

namespace ttile::runtime {
namespace {

/// `term` seen as [letters before x][x][letters between x and a][a].
AxisMove moveOf(const std::string &term, char moved,
                const std::map<char, int64_t> &sizes) {
  AxisMove move;
  const size_t at = term.find(moved);
  for (size_t l = 0; l < term.size(); ++l) {
    const int64_t size = sizes.at(term[l]);
    if (l < at)
      move.before *= size;
    else if (l == at)
      move.moved = size;
    else if (l + 1 < term.size())
      move.between *= size;
    else
      move.run = size;
  }
  return move;
}

/// The product of the sizes of the letters missing from `term`: the
/// multiply-adds each of its elements takes part in.
int64_t multiplyAddsPerElement(const std::string &term,
                               const std::map<char, int64_t> &sizes) {
  int64_t multiplyAdds = 1;
  for (auto [letter, size] : sizes)
    if (term.find(letter) == std::string::npos)
      multiplyAdds *= size;
  return multiplyAdds;
}

/// `term` without `moved`, and `fused` in place of its last letter.
std::string fusedTerm(std::string term, char moved, char fused) {
  term.erase(term.find(moved), 1);
  term.back() = fused;
  return term;
}

/// A buffer of the calling thread per use, reused across runs and grown as
/// needed; aligned like the buffers kernels are tuned on.
enum class Slot { Operand, Output };
float *threadBuffer(Slot slot, int64_t elements) {
  thread_local measure::AlignedBuffer buffers[2] = {measure::AlignedBuffer(0),
                                                    measure::AlignedBuffer(0)};
  measure::AlignedBuffer &buffer = buffers[static_cast<int>(slot)];
  if (buffer.size() < static_cast<size_t>(elements))
    buffer = measure::AlignedBuffer(static_cast<size_t>(elements));
  return buffer.data();
}

} // namespace

namespace {

/// Moves smaller than this run on the calling thread: waking the pool's
/// workers would cost more than the copy.
constexpr int64_t kParallelElements = 1 << 14;

/// One AxisMove's copy, cut into its (before, moved) iterations for the
/// thread pool: each copies `between` runs.
struct AxisMoveJob {
  const AxisMove &move;
  const float *src;
  float *dst;
  bool undo;

  static void runIteration(void *context, int64_t iteration, int64_t) {
    const AxisMoveJob &job = *static_cast<const AxisMoveJob *>(context);
    const AxisMove &move = job.move;
    const int64_t p = iteration / move.moved, m = iteration % move.moved;
    const size_t runBytes = static_cast<size_t>(move.run) * sizeof(float);
    for (int64_t q = 0; q < move.between; ++q) {
      const int64_t movedFirst = ((p * move.moved + m) * move.between + q);
      const int64_t betweenFirst = ((p * move.between + q) * move.moved + m);
      std::memcpy(job.dst + (job.undo ? movedFirst : betweenFirst) * move.run,
                  job.src + (job.undo ? betweenFirst : movedFirst) * move.run,
                  runBytes);
    }
  }

  void run() {
    const int64_t iterations = move.before * move.moved;
    if (iterations * move.between * move.run >= kParallelElements) {
      ttile_parallel_for(&runIteration, this, iterations);
      return;
    }
    for (int64_t iteration = 0; iteration < iterations; ++iteration)
      runIteration(this, iteration, 0);
  }
};

} // namespace

void AxisMove::apply(const float *src, float *dst) const {
  AxisMoveJob{*this, src, dst, /*undo=*/false}.run();
}

void AxisMove::undo(const float *src, float *dst) const {
  AxisMoveJob{*this, src, dst, /*undo=*/true}.run();
}

std::optional<VectorIndexFusion> VectorIndexFusion::find(
    const std::vector<std::string> &operands, const std::string &output,
    const std::map<char, int64_t> &sizes, bool constantB, char fused) {
  if (operands.size() != 2 || output.size() < 2)
    return std::nullopt;
  const char vector = output.back();
  if (sizes.at(vector) % kWidestLanes == 0)
    return std::nullopt;
  auto holds = [](const std::string &term, char letter) {
    return term.find(letter) != std::string::npos;
  };
  int operand = -1;
  for (int o = 0; o < 2; ++o)
    if (!operands[o].empty() && operands[o].back() == vector &&
        !holds(operands[1 - o], vector))
      operand = o;
  if (operand < 0)
    return std::nullopt;
  const std::string &term = operands[operand];
  // The output letter nearest the vector letter that is a free letter of
  // the same operand.
  char moved = 0;
  for (size_t l = output.size() - 1; l-- > 0 && !moved;)
    if (holds(term, output[l]) && !holds(operands[1 - operand], output[l]))
      moved = output[l];
  if (!moved)
    return std::nullopt;

  VectorIndexFusion fusion;
  fusion.moved_ = moved;
  fusion.vector_ = vector;
  fusion.fused_ = fused;
  fusion.operand_ = operand;
  fusion.operandMove_ = moveOf(term, moved, sizes);
  fusion.outputMove_ = moveOf(output, moved, sizes);
  const bool operandCopiedOnce = operand == 1 && constantB;
  if ((fusion.copiesOperand() && !operandCopiedOnce &&
       multiplyAddsPerElement(term, sizes) < kMinMultiplyAddsPerCopy) ||
      (fusion.copiesOutput() &&
       multiplyAddsPerElement(output, sizes) < kMinMultiplyAddsPerCopy))
    return std::nullopt;

  fusion.output_ = fusedTerm(output, moved, fused);
  fusion.operands_ = operands;
  fusion.operands_[operand] = fusedTerm(term, moved, fused);
  fusion.sizes_ = sizes;
  fusion.sizes_.erase(moved);
  fusion.sizes_.erase(vector);
  fusion.sizes_[fused] = sizes.at(moved) * sizes.at(vector);
  return fusion;
}

std::string VectorIndexFusion::str() const {
  return fmt::format("{},{} fused as {}; {} {}{}", moved_, vector_, fused_,
                     operand_ == 0 ? "A" : "B",
                     copiesOperand() ? "reordered" : "renamed",
                     copiesOutput() ? ", C reordered" : "");
}

const float *VectorIndexFusion::operandInThreadBuffer(const float *src) const {
  const AxisMove &move = operandMove_;
  float *buffer = threadBuffer(Slot::Operand, move.before * move.moved *
                                                  move.between * move.run);
  move.apply(src, buffer);
  return buffer;
}

float *VectorIndexFusion::outputThreadBuffer() const {
  const AxisMove &move = outputMove_;
  return threadBuffer(Slot::Output,
                      move.before * move.moved * move.between * move.run);
}

void VectorIndexFusion::restoreOutput(const float *src, float *dst) const {
  outputMove_.undo(src, dst);
}

} // namespace ttile::runtime
