//===- Spec/Reference.h - The naive executor: the oracle --------*- C++ -*-===//
//
// Runs any Spec with plain loops over its iteration space, in double
// precision accumulation. It is slow and obviously correct, and every
// correctness test compares generated code against it.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SPEC_REFERENCE_H
#define TTILE_SPEC_REFERENCE_H

#include "Spec/Spec.h"

#include <span>
#include <vector>

namespace ttile::spec {

/// One buffer per tensor, in Spec::tensors order (output first). Overwrites
/// the output, which must not share memory with the other buffers (not even
/// with the residual, as kernels allow).
void runReference(const Spec &spec, std::span<float *const> buffers);

/// The reference value of one output element, given its coordinates along
/// the output's axes. Used to check large outputs on sampled points.
float referenceAt(const Spec &spec, std::span<const float *const> buffers,
                  std::span<const int64_t> outputCoords);

/// One output element as the checker needs it: the value, accumulated in
/// double and after the activation, and the magnitude |bias| + |residual| +
/// sum |product| of the terms summed into it, which bounds the rounding error
/// of any summation order; after an activation, that bound times the
/// activation's slope, plus |value| for the activation's own rounding.
struct ReferencePoint {
  double value = 0;
  double magnitude = 0;
};

/// Every output element, row-major over the output's axes. buffers[0], the
/// output, is not read.
std::vector<ReferencePoint>
referencePoints(const Spec &spec, std::span<const float *const> buffers);

/// referenceAt with the magnitude.
ReferencePoint referencePointAt(const Spec &spec,
                                std::span<const float *const> buffers,
                                std::span<const int64_t> outputCoords);

} // namespace ttile::spec

#endif // TTILE_SPEC_REFERENCE_H
