//===- Measure/TensorBuffers.cpp - Buffers for every tensor of a spec -----===//

#include "Measure/TensorBuffers.h"

namespace ttile::measure {

TensorBuffers::TensorBuffers(const spec::Spec &spec, uint64_t seed,
                             float outputFill) {
  for (size_t t = 0; t < spec.tensors.size(); ++t) {
    const spec::Tensor &tensor = spec.tensors[t];
    AlignedBuffer &buffer = buffers_.emplace_back(
        static_cast<size_t>(tensor.numElements()));
    if (tensor.role == spec::TensorRole::Output)
      buffer.fill(outputFill);
    else
      buffer.fillRandom(seed + t); // Distinct data in every tensor.
  }
  for (AlignedBuffer &buffer : buffers_)
    pointers_.push_back(buffer.data());
}

KernelArguments::KernelArguments(const jit::Kernel &kernel,
                                 const TensorBuffers &buffers)
    : pointers_(buffers.pointers().begin(), buffers.pointers().end()) {
  const spec::Spec &spec = kernel.spec();
  for (size_t t = 0; t < spec.tensors.size(); ++t) {
    if (!spec.tensors[t].constant)
      continue;
    int tensor = static_cast<int>(t);
    AlignedBuffer &laidOut = laidOut_.emplace_back(
        static_cast<size_t>(kernel.constantElements(tensor)));
    kernel.layOutConstant(tensor, pointers_[t], laidOut.data());
    pointers_[t] = laidOut.data();
  }
}

} // namespace ttile::measure
