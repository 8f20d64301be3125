//===- Runtime/VectorIndexFusion.cpp - One long vector index --------------===//

#include "Runtime/VectorIndexFusion.h"

#include <spdlog/fmt/fmt.h>

namespace ttile::runtime {
namespace {

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

/// `term` without the letters `x` and `a`, then `tail`.
std::string withTail(const std::string &term, char x, char a,
                     const std::string &tail) {
  std::string result;
  for (char letter : term)
    if (letter != x && letter != a)
      result += letter;
  return result + tail;
}

} // namespace

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
    if (holds(operands[o], vector) && !holds(operands[1 - o], vector))
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
  const std::string pair{moved, vector};
  TensorOrders &orders = fusion.orders_;
  orders.setOperand(
      operand,
      LetterPermutation(term, withTail(term, moved, vector, pair), sizes));
  orders.setOutput(
      LetterPermutation(withTail(output, moved, vector, pair), output, sizes));
  const bool operandCopiedOnce = operand == 1 && constantB;
  if ((orders.copiesOperand(operand) && !operandCopiedOnce &&
       multiplyAddsPerElement(term, sizes) < kMinMultiplyAddsPerCopy) ||
      (orders.copiesOutput() &&
       multiplyAddsPerElement(output, sizes) < kMinMultiplyAddsPerCopy))
    return std::nullopt;

  const std::string fusedLetter(1, fused);
  fusion.output_ = withTail(output, moved, vector, fusedLetter);
  fusion.operands_ = operands;
  fusion.operands_[operand] = withTail(term, moved, vector, fusedLetter);
  fusion.sizes_ = sizes;
  fusion.sizes_.erase(moved);
  fusion.sizes_.erase(vector);
  fusion.sizes_[fused] = sizes.at(moved) * sizes.at(vector);
  return fusion;
}

std::string VectorIndexFusion::str() const {
  return fmt::format("{},{} fused as {}; {} {}{}", moved_, vector_, fused_,
                     operand_ == 0 ? "A" : "B",
                     orders_.copiesOperand(operand_) ? "reordered" : "renamed",
                     orders_.copiesOutput() ? ", C reordered" : "");
}

} // namespace ttile::runtime
