//===- Runtime/VectorIndexFusion.cpp - One long vector index --------------===//

#include "Runtime/VectorIndexFusion.h"

#include "Measure/AlignedBuffer.h"

#include <spdlog/fmt/fmt.h>

#include <cstring>

namespace ttile::runtime {

std::optional<VectorIndexFusion> VectorIndexFusion::find(
    const std::vector<std::string> &operands, const std::string &output,
    const std::map<char, int64_t> &sizes, bool constantB, char fused) {
  if (operands.size() != 2 || output.size() < 2)
    return std::nullopt;
  const char inner = output.back(), outer = output[output.size() - 2];
  if (sizes.at(inner) % kWidestLanes == 0)
    return std::nullopt;
  auto holds = [](const std::string &term, char letter) {
    return term.find(letter) != std::string::npos;
  };
  int operand = -1;
  for (int o = 0; o < 2; ++o)
    if (!operands[o].empty() && operands[o].back() == inner &&
        holds(operands[o], outer) && !holds(operands[1 - o], inner) &&
        !holds(operands[1 - o], outer))
      operand = o;
  if (operand < 0)
    return std::nullopt;

  VectorIndexFusion fusion;
  fusion.outer_ = outer;
  fusion.inner_ = inner;
  fusion.fused_ = fused;
  fusion.operand_ = operand;
  const std::string &term = operands[operand];
  const size_t outerAt = term.find(outer);
  for (size_t l = 0; l < term.size(); ++l) {
    const int64_t size = sizes.at(term[l]);
    if (l < outerAt)
      fusion.before_ *= size;
    else if (l > outerAt && l + 1 < term.size())
      fusion.between_ *= size;
  }
  fusion.outerSize_ = sizes.at(outer);
  fusion.innerSize_ = sizes.at(inner);
  if (fusion.copies() && !(operand == 1 && constantB)) {
    int64_t multiplyAdds = 1;
    for (auto [letter, size] : sizes)
      if (!holds(term, letter))
        multiplyAdds *= size;
    if (multiplyAdds < kMinMultiplyAddsPerCopy)
      return std::nullopt;
  }

  // The fused terms: "ba" becomes x at the end of the output and of the
  // operand, whose other letters keep their order.
  const std::string x(1, fused);
  fusion.output_ = output.substr(0, output.size() - 2) + x;
  fusion.operands_ = operands;
  std::string &fusedTerm = fusion.operands_[operand];
  fusedTerm.erase(outerAt, 1);
  fusedTerm.back() = fused;
  fusion.sizes_ = sizes;
  fusion.sizes_.erase(outer);
  fusion.sizes_.erase(inner);
  fusion.sizes_[fused] = fusion.outerSize_ * fusion.innerSize_;
  return fusion;
}

std::string VectorIndexFusion::str() const {
  return fmt::format("{},{} fused as {}; {} {}", outer_, inner_, fused_,
                     operand_ == 0 ? "A" : "B",
                     copies() ? "reordered" : "renamed");
}

void VectorIndexFusion::reorder(const float *src, float *dst) const {
  // Each (p, b, q) row of `innerSize_` floats moves whole: a strided
  // gather of contiguous runs, at the memory's pace for TCCG's 72-float
  // rows.
  const size_t rowBytes = static_cast<size_t>(innerSize_) * sizeof(float);
  for (int64_t p = 0; p < before_; ++p)
    for (int64_t b = 0; b < outerSize_; ++b)
      for (int64_t q = 0; q < between_; ++q)
        std::memcpy(dst + ((p * between_ + q) * outerSize_ + b) * innerSize_,
                    src + ((p * outerSize_ + b) * between_ + q) * innerSize_,
                    rowBytes);
}

const float *
VectorIndexFusion::reorderedInThreadBuffer(const float *src) const {
  thread_local measure::AlignedBuffer buffer(0);
  const size_t elements =
      static_cast<size_t>(before_ * outerSize_ * between_ * innerSize_);
  if (buffer.size() < elements)
    buffer = measure::AlignedBuffer(elements);
  reorder(src, buffer.data());
  return buffer.data();
}

} // namespace ttile::runtime
