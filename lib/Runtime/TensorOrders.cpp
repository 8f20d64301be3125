//===- Runtime/TensorOrders.cpp - A kernel's tensors in its own order -----===//

#include "Runtime/TensorOrders.h"

#include "Runtime/ThreadBuffers.h"

namespace ttile::runtime {

int64_t TensorOrders::elementsCopiedPerRun(bool constantB) const {
  int64_t elements = 0;
  for (int operand : {0, 1})
    if (copiesOperand(operand) && !(operand == 1 && constantB))
      elements += operands_[operand].elements();
  if (copiesOutput())
    elements += output_.elements();
  return elements;
}

const float *TensorOrders::reorderedOperand(int operand,
                                            const float *caller) const {
  const LetterPermutation &order = operands_[operand];
  float *buffer = threadBuffer(operand == 0 ? ThreadBufferSlot::Input
                                            : ThreadBufferSlot::Weights,
                               order.elements());
  order.apply(caller, buffer);
  return buffer;
}

float *TensorOrders::outputBuffer() const {
  return threadBuffer(ThreadBufferSlot::Output, output_.elements());
}

} // namespace ttile::runtime
