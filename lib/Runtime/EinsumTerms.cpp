//===- Runtime/EinsumTerms.cpp - An einsum's letters per tensor -----------===//

#include "Runtime/EinsumTerms.h"

namespace ttile::runtime {

EinsumTerms::EinsumTerms(const spec::Spec &spec) {
  auto letters = [](const spec::Tensor &tensor) {
    std::string text;
    for (const spec::TensorAxis &axis : tensor.axes)
      text += axis.name;
    return text;
  };
  for (int input : spec.inputIndices())
    operands.push_back(letters(spec.tensors[input]));
  output = letters(spec.tensors[0]);
}

std::string EinsumTerms::str() const {
  std::string text;
  for (const std::string &operand : operands)
    text += (text.empty() ? "" : ",") + operand;
  return text + "->" + output;
}

std::string withLetterLast(std::string_view term, char letter) {
  if (!holdsLetter(term, letter))
    return std::string(term);
  std::string moved;
  for (char other : term)
    if (other != letter)
      moved += other;
  return moved + letter;
}

} // namespace ttile::runtime
