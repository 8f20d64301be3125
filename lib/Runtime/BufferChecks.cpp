//===- Runtime/BufferChecks.cpp - The messages of the buffer checks -------===//

#include "Runtime/BufferChecks.h"

#include <string>

namespace ttile::runtime {

void refuseBuffer(BrokenRule rule, const RunShape &shape, std::string_view role,
                  const void *buffer) {
  const std::string name(role), output(shape.outputName);
  switch (rule) {
  case BrokenRule::BadBuffer:
    throw Error(name +
                (buffer ? " is not aligned for float (4 bytes)" : " is null"));
  case BrokenRule::Overlap:
    throw Error(output + " overlaps " + name);
  case BrokenRule::ConstantWeightsGiven:
    throw Error(name + " must be null: its values are constant, given once "
                       "to setWeights()");
  case BrokenRule::ResidualGiven:
    throw Error("a residual was given, but this operator was created "
                "without one (residual = false)");
  case BrokenRule::ResidualMissing:
    throw Error("residual is null: this operator adds one (residual = true)");
  case BrokenRule::ResidualOverlap:
    throw Error(output + " overlaps residual (it may be the " + output +
                " itself, not part of it)");
  }
  throw Error("a buffer check failed: " + name, ErrorCode::Internal);
}

} // namespace ttile::runtime
