//===- onnxruntime/MatMulOp.cpp - ttile.MatMul for ONNX Runtime -----------===//

#include "MatMulOp.h"

#include <string>

namespace ttile::onnxruntime {
namespace {

int64_t product(std::vector<int64_t>::const_iterator begin,
                std::vector<int64_t>::const_iterator end) {
  int64_t result = 1;
  for (auto it = begin; it != end; ++it)
    result *= *it;
  return result;
}

bool flag(const Ort::ConstKernelInfo &info, const char *name) {
  int64_t value = optionalAttribute<int64_t>(info, name).value_or(0);
  if (value != 0 && value != 1)
    throw Error(std::string(name) + " is " + std::to_string(value) +
                "; it must be 0 or 1");
  return value == 1;
}

/// The product's parameters from the node's shapes and attributes (the
/// header says which shapes), and Y's shape.
MatMulParams paramsOf(const Ort::ConstKernelInfo &info,
                      const std::vector<int64_t> &a,
                      std::vector<int64_t> &y) {
  std::vector<int64_t> b = staticShape(info, 1, "B", MatMulOp::kName);
  MatMulParams p;
  p.transA = flag(info, "trans_a");
  p.transB = flag(info, "trans_b");
  if (a.size() < 2 || b.size() < 2)
    throw Error("A " + shapeText(a) + " and B " + shapeText(b) +
                " must be matrices or batches of them");
  if (b.size() > 2 &&
      (a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())))
    throw Error("A " + shapeText(a) + " and B " + shapeText(b) +
                " must have the same batch axes (ttile.MatMul does not "
                "broadcast them)");
  if (p.transA && a.size() != 2)
    throw Error("a transposed A must be 2D; A is " + shapeText(a));
  const int64_t aRows = a[a.size() - 2], aColumns = a.back();
  p.M = p.transA ? aColumns : aRows;
  p.K = p.transA ? aRows : aColumns;
  const int64_t bRows = b[b.size() - 2], bColumns = b.back();
  p.N = p.transB ? bRows : bColumns;
  if ((p.transB ? bColumns : bRows) != p.K)
    throw Error("A " + shapeText(a) + " and B " + shapeText(b) +
                " do not agree on K" +
                (p.transA || p.transB ? " (with trans_a, trans_b)" : ""));
  if (b.size() == 2)
    p.M *= product(a.begin(), a.end() - 2); // Leading axes as rows.
  else
    p.batch = product(a.begin(), a.end() - 2);
  y.assign(a.begin(), a.end() - 2);
  y.push_back(p.transA ? aColumns : aRows);
  y.push_back(p.N);

  setEpilogue(info, p);
  p.constantB = constantInput(info, 1) != nullptr;
  return p;
}

} // namespace

MatMul MatMulOp::create(const Ort::ConstKernelInfo &info, NodeRun &run) {
  run.inputRole = "A";
  run.inputShape = staticShape(info, 0, "A", kName);
  MatMul matmul(paramsOf(info, run.inputShape, run.outputShape));
  run.constantWeights = matmul.params().constantB;
  run.hasBias = info.GetInputCount() > 2;
  run.residual = matmul.params().residual;
  return matmul;
}

} // namespace ttile::onnxruntime
