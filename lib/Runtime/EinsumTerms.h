//===- Runtime/EinsumTerms.h - An einsum's letters per tensor ---*- C++ -*-===//
//
// The letters of each tensor of an einsum, as the runtime rewrites them on
// the way to a kernel's spec (ContractionProblem.h): the operands', then the
// output's, each row-major (its last letter contiguous).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_EINSUMTERMS_H
#define TTILE_RUNTIME_EINSUMTERMS_H

#include "Spec/Spec.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttile::runtime {

struct EinsumTerms {
  std::vector<std::string> operands;
  std::string output;

  EinsumTerms() = default;
  /// The terms of a spec::contraction.
  explicit EinsumTerms(const spec::Spec &spec);
  /// "abc,cd->abd".
  std::string str() const;
};

/// Whether the letters of `term` hold `letter`.
inline bool holdsLetter(std::string_view term, char letter) {
  return term.find(letter) != std::string_view::npos;
}

/// `term` with `letter`, where it holds it, moved last: the order of a
/// tensor whose kernel reads that letter contiguous.
std::string withLetterLast(std::string_view term, char letter);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_EINSUMTERMS_H
