//===- Measure/TensorBuffers.cpp - Buffers for every tensor of a spec -----===//

#include "Measure/TensorBuffers.h"

#include "ttile/Error.h"

#include <string>

namespace ttile::measure {

TensorBuffers::TensorBuffers(const spec::Spec &spec, uint64_t seed,
                             float outputFill,
                             std::span<const size_t> offsetBytes) {
  if (!offsetBytes.empty() && offsetBytes.size() != spec.tensors.size())
    throw Error("expected an offset for each of the " +
                std::to_string(spec.tensors.size()) + " tensors, got " +
                std::to_string(offsetBytes.size()));
  for (size_t t = 0; t < spec.tensors.size(); ++t) {
    const spec::Tensor &tensor = spec.tensors[t];
    size_t offset = offsetBytes.empty() ? 0 : offsetBytes[t];
    if (offset % sizeof(float) != 0 || offset >= AlignedBuffer::kAlignment)
      throw Error("the offset of " + tensor.name + " from a 64-byte line, " +
                  std::to_string(offset) +
                  " bytes, is not a multiple of 4 below 64");
    AlignedBuffer &buffer = buffers_.emplace_back(
        static_cast<size_t>(tensor.numElements()), offset);
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
