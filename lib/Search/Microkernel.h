//===- Search/Microkernel.h - Register microkernels as data -----*- C++ -*-===//
//
// A microkernel (paper 4.1, thesis 5.2) is the register tile at the bottom
// of a scheme: unroll factors along some dimensions and a vectorized one,
//
//   U(s_s,s) U(s_r,r) U(s_c,c) U(s_w,w) U(s_h,h) U(s_k,k) V(k)
//
// for a convolution, U(s_s,s) U(s_w,w) U(s_g,g) V(g) for a depthwise one,
// U(s_s,s) U(s_h,h) U(s_w,w) V(w) for a depthwise one in NCHW (planar),
// U(s_i,i) U(s_j,j) V(j) for a matmul, U(s_i,i) U(s_k,k) V(k) for a
// matrix times a vector (dot: the vector along the reduction), or
// U(s_i,i) U(s_j,j) U(s_b,b) V(b) for products whose lanes are batch items
// (lanewise: the vector along a batch index of every tensor). Microkernels
// are data here, as in XNNPACK: one family description per operator says
// which dimensions unroll, in which order, which one is vectorized, which
// one two microkernels may be combined along (the Lambda dimension), and
// which one the microkernel is repeated along for reuse, and the problem
// that measures one alone. The variants are enumerated from bounds
// (MicrokernelSpace.h), never written by hand; which family fits a spec is
// read from the spec's structure (FamilyBinding.h).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_MICROKERNEL_H
#define TTILE_SEARCH_MICROKERNEL_H

#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::search {

/// What a family of microkernels looks like for one operator.
struct MicrokernelFamily {
  std::string name;                  ///< "conv2d", "matmul".
  std::vector<std::string> unrolled; ///< Outermost first, e.g. s r c w h k.
  std::string vectorDim;             ///< "k": unrolled last, then V.
  std::string combinationDim;        ///< "h": the Lambda dimension.
  std::string reuseDim;              ///< "c": the loop right above.
  /// The unrolled dimensions that index the output: its accumulators take
  /// the product of their factors in vector registers ("w h k").
  std::vector<std::string> outputDims;
  /// Unrolled dimensions that take window sizes ("r s"), not any factor.
  std::vector<std::string> windowDims;
  /// Whether the loops over vectorDim sit right above the reuse loop, below
  /// every other, so that the tiles walk the layout in memory order: for a
  /// memory-bound family (SearchSpace.h, item 3).
  bool vectorLoopsInnermost = false;
  /// Whether every multiply-add loads a vector of its own (the planar
  /// family: each window tap reads a shifted row), so that loads, not the
  /// multiply-adds' latency, bound it: fewer accumulators suffice, and the
  /// candidates go down to half the register file's lower bounds
  /// (MicrokernelSpace.h).
  bool loadBound = false;
  /// The problem a microkernel of the family is measured on alone
  /// (MicrokernelBench.h), given the size of each of the family's own
  /// dimensions: the unrolled ones and the reuse one.
  spec::Spec (*benchProblem)(const std::map<std::string, int64_t> &sizes) =
      nullptr;

  /// The same family over other dimension names: `names` maps a
  /// dimension of this family ("j") to the one that plays it ("a"); the
  /// others keep their names. The name, and so the offline table, stay:
  /// a contraction runs the matmul family's measured microkernels.
  MicrokernelFamily
  withDimNames(const std::map<std::string, std::string> &names) const;

  static const MicrokernelFamily &conv2d();
  static const MicrokernelFamily &matmul();
  static const MicrokernelFamily &depthwise();
  static const MicrokernelFamily &planar();
  static const MicrokernelFamily &dot();
  static const MicrokernelFamily &lanewise();
  /// Every family, conv2d first.
  static const std::vector<const MicrokernelFamily *> &all();
  /// The family called `name`; nullptr for none.
  static const MicrokernelFamily *find(std::string_view name);
};

struct Microkernel {
  /// Unroll factor per dimension of the family's `unrolled` list, in that
  /// order. The factor of the vectorized dimension counts vectors.
  std::vector<int64_t> factors;

  int64_t factor(const MicrokernelFamily &family, const std::string &dim) const;
  /// The same microkernel with `dim` unrolled `factor` times.
  Microkernel withFactor(const MicrokernelFamily &family,
                         const std::string &dim, int64_t factor) const;
  /// The register tile as scheme atoms: U atoms (factor 1 omitted) then V.
  /// With `parametric`, the combination dimension's U is U(lambda,d).
  std::vector<scheme::Atom> atoms(const MicrokernelFamily &family,
                                  bool parametric = false) const;
  /// "U(12,h) U(2,k) V(k)".
  std::string str(const MicrokernelFamily &family) const;

  bool operator==(const Microkernel &) const = default;
  auto operator<=>(const Microkernel &) const = default;
};

/// A microkernel and how fast it ran, repeated along the reuse dimension.
struct MeasuredMicrokernel {
  Microkernel kernel;
  double percentOfPeak = 0;
};

/// Microkernels identical except along the combination dimension, all above
/// the selection threshold (paper 4.1). Search draws Lambda pairs from one
/// class.
struct MicrokernelClass {
  Microkernel shape; ///< Factor of the combination dimension unspecified (0).
  std::vector<int64_t> combinationSizes; ///< Ascending.
  double bestPercentOfPeak = 0;

  /// The member whose combination dimension is unrolled `size` times.
  Microkernel member(const MicrokernelFamily &family, int64_t size) const;
};

} // namespace ttile::search

#endif // TTILE_SEARCH_MICROKERNEL_H
