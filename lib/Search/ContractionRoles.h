//===- Search/ContractionRoles.h - A contraction as a matmul -*- C++ -*-===//
//
// A two-input contraction, a matmul among them, runs the matmul family's
// microkernels, as a convolution does with w = r = s = 1 (thesis 2.2.2;
// FamilyBinding.h binds every spec to its family): one of its indices
// plays j, the vectorized one, another i, the one two microkernels combine
// along, and a third k, the reduction right above the microkernel. The
// roles are read from the structure of the spec, never from its names:
//
//  - j: the output's last index, contiguous where the microkernel stores
//    vectors. Where it belongs to one input only, that input is read as
//    vectors (and packed with j contiguous when it is stored otherwise),
//    the other is broadcast;
//  - i: an index of the output and of the broadcast input only;
//  - k: a reduction index of both inputs.
//
// Where the output's last index b is the last index of both inputs too (a
// batch index, innermost everywhere: "ikb,kjb->ijb"), each vector lane is
// a product of its own, and the lanewise family computes it: b is
// vectorized, i is an index of the output and A only, j one of the output
// and B only, and k as above. Both inputs are read as vectors; the roles
// call A the broadcast input and B the vector one.
//
// Among several candidates for i or k, the largest (room for the
// microkernel's sizes and a long reuse loop), then the one stored latest in
// the broadcast input (its nearest neighbours in memory). Every other
// index (batch indices, further free and reduction indices) is tiled
// above the microkernel, the batch indices outermost (SearchSpace.h). Where i
// or k has no candidate (a matrix-vector product, an outer product), the
// operator adds an index of size 1 (Runtime/ContractionProblem.h): it changes
// no memory layout.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_CONTRACTIONROLES_H
#define TTILE_SEARCH_CONTRACTIONROLES_H

#include "Spec/Spec.h"

#include <string>

namespace ttile::search {

struct ContractionRoles {
  int vectorInput = 0;    ///< The spec's tensor read as vectors (lanewise: B).
  int broadcastInput = 0; ///< The other input (lanewise: A).
  /// j (lanewise: b), i and k; i and k are empty where no index can play
  /// them.
  std::string vector, combination, reduction;
  /// Whether the vectorized index is the last of every tensor: the
  /// lanewise family's roles.
  bool lanewise = false;
  /// Lanewise only: j, an index of the output and of B only; empty where
  /// none is.
  std::string columns;

  bool complete() const {
    return !combination.empty() && !reduction.empty() &&
           (!lanewise || !columns.empty());
  }
};

/// The roles of a two-input contraction (spec::contraction). Throws
/// ttile::Error for another number of inputs, a scalar output, or an
/// output whose last index belongs to neither input, or to both without
/// being the last index of both (which a Contraction reorders into one
/// that has roles: Runtime/LayoutReordering.h).
ContractionRoles contractionRoles(const spec::Spec &spec);

} // namespace ttile::search

#endif // TTILE_SEARCH_CONTRACTIONROLES_H
