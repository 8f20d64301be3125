//===- Runtime/LayoutReordering.h - Orders that vectorize -------*- C++ -*-===//
//
// A contraction's kernel vectorizes one letter: the output's last, where it
// is a letter of one operand only (the matmul family) or the last of every
// tensor (lanewise), or a summed letter that ends both operands (a dot
// product). An einsum whose output's last letter is in both operands
// without ending both ("ij,ji->ij", "ki,kj->ijk", "bij,bjk->ikb") fits
// none as laid out, and a scalar such as "ij,ji->" fits only with a vector
// of one lane. numpy computes them all; ttile does by having the kernel
// read or write a tensor with its letters in another order, which run()
// copies (TensorOrders.h). The candidates, for each letter x of size 2 or
// more:
//
//  - x, a letter of both operands, last in every tensor that holds it: the
//    operands are copied at each run (a constant B once), and the output
//    where x is an output letter not already last in it:
//        ij,ji->ij     computes  ij,ij->ij     (x = j; lanewise)
//        ij,ji->       computes  ij,ij->       (x = j; a dot product)
//  - an output letter x of one operand, last in the output only: the
//    kernel writes the output in that order, and run() copies it into the
//    caller's; the operand is read where it lies:
//        bij,bjk->ikb  computes  bij,bjk->ibk  (x = k; a batched matmul)
//
// The candidate kept is the one expected to take the fewest cycles: the
// data-movement model's estimate of its kernel (search::modelCycles, as a
// ContractionChain ranks its orders) and a cycle for each element copied
// (a strided copy moves about one an element). The terms as laid out are
// a candidate too, where their kernel has a vector of one lane; such a
// kernel is kept only where every candidate's is one. It runs scalar code
// that the model, made for vectors, does not see: its multiply-adds chain
// into few accumulators, each after a strided load ("ij,ji->" at 256 x 256
// ran at 2.1 GFLOP/s as laid out, the dot product of "ij,ij->" at 30 on
// AMD Zen 5).
//
// The choice is kept in the choice cache (Cache/ChoiceCache.h): the next
// process builds the chosen candidate's kernel form alone, and asks the
// model nothing (a reordered "bij,bjk->ikb", b 12 and 128^3, was
// constructed in 9.7 ms before, its kernel 0.25 ms).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_LAYOUTREORDERING_H
#define TTILE_RUNTIME_LAYOUTREORDERING_H

#include "Runtime/EinsumTerms.h"
#include "Runtime/TensorOrders.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace ttile::runtime {

class LayoutReordering {
public:
  /// The spec of the kernel that computes `terms` over `sizes`; throws
  /// ttile::Error where no microkernel family takes them.
  using KernelSpecOf = std::function<spec::Spec(
      const EinsumTerms &terms, const std::map<char, int64_t> &sizes)>;

  /// The cheapest candidate above for two-operand `terms` over `sizes`, or
  /// the one the choice cache holds for them; nullopt where that is `terms`
  /// as laid out, or no candidate has a kernel. `constantB`: B is copied
  /// once, not at every run. `kernelSpecOf` is called on the candidate
  /// returned, and (choosing anew) on every other.
  static std::optional<LayoutReordering>
  find(const EinsumTerms &terms, const std::map<char, int64_t> &sizes,
       bool constantB, const KernelSpecOf &kernelSpecOf);

  /// Whether the kernel of `kernel`, a contraction's spec, vectorizes a
  /// letter of size 1.
  static bool hasOneLaneVector(const spec::Spec &kernel);

  /// The terms the kernel computes.
  const EinsumTerms &terms() const { return terms_; }
  /// From the caller's orders to the kernel's.
  const TensorOrders &orders() const { return orders_; }
  /// "B read as ij", "C written as ibk": for logs and docs.
  std::string str() const;

private:
  /// From `terms` to the kernel's `kernelTerms`.
  LayoutReordering(const EinsumTerms &terms, const EinsumTerms &kernelTerms,
                   const std::map<char, int64_t> &sizes);

  EinsumTerms terms_;
  TensorOrders orders_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_LAYOUTREORDERING_H
