//===- onnxruntime/EinsumOp.cpp - ttile.Einsum for ONNX Runtime -----------===//

#include "EinsumOp.h"

#include <map>
#include <string>

namespace ttile::onnxruntime {
namespace {

/// The contraction's parameters: the equation, and each letter's size
/// from the operands' shapes; Y's shape.
ContractionParams paramsOf(const Ort::ConstKernelInfo &info,
                           const std::vector<int64_t> &a,
                           std::vector<int64_t> &y) {
  ContractionParams p;
  p.einsum = info.GetAttribute<std::string>("equation");
  const std::vector<std::string> terms = einsumTerms(p.einsum);
  if (terms.size() != 3)
    throw Error("equation \"" + p.einsum + "\" has " +
                std::to_string(terms.size() - 1) +
                " operands; ttile.Einsum takes two");
  const std::vector<int64_t> shapes[] = {
      a, staticShape(info, 1, "B", EinsumOp::kName)};
  for (int operand = 0; operand < 2; ++operand) {
    const std::string &letters = terms[operand];
    const std::vector<int64_t> &shape = shapes[operand];
    const char *name = operand ? "B" : "A";
    if (shape.size() != letters.size())
      throw Error(std::string(name) + " " + shapeText(shape) + " has " +
                  std::to_string(shape.size()) + " axes; equation \"" +
                  p.einsum + "\" gives it " + std::to_string(letters.size()));
    for (size_t axis = 0; axis < letters.size(); ++axis) {
      auto [size, added] = p.sizes.emplace(letters[axis], shape[axis]);
      if (!added && size->second != shape[axis])
        throw Error("'" + std::string(1, letters[axis]) + "' is " +
                    std::to_string(size->second) + " in A " +
                    shapeText(shapes[0]) + " but " +
                    std::to_string(shape[axis]) + " in " + name + " " +
                    shapeText(shape) + " (ttile.Einsum broadcasts nothing)");
    }
  }
  y.clear();
  for (char letter : terms[2]) {
    auto size = p.sizes.find(letter);
    if (size == p.sizes.end())
      throw Error("equation \"" + p.einsum + "\": output letter '" +
                  std::string(1, letter) + "' is in no operand");
    y.push_back(size->second);
  }
  p.constantB = constantInput(info, 1) != nullptr;
  return p;
}

} // namespace

Contraction EinsumOp::create(const Ort::ConstKernelInfo &info, NodeRun &run) {
  run.inputRole = "A";
  run.inputShape = staticShape(info, 0, "A", kName);
  Contraction contraction(paramsOf(info, run.inputShape, run.outputShape));
  run.constantWeights = contraction.params().constantB;
  return contraction;
}

} // namespace ttile::onnxruntime
