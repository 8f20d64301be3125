//===- Scheme/Scheme.h - Optimization schemes: how to compute ---*- C++ -*-===//
//
// An optimization scheme (thesis 3.2, paper 3.3) is a list of atoms, from the
// outermost loop inwards. Together with a Spec it determines the loop nest
// completely. The text form, one line with atoms separated by spaces, is
// documented in docs/SchemeLanguage.md:
//
//   T(16,k) Lambda(h,[(2,11),(1,12)]) T(17,w) T(256,c) U(lambda,h) U(2,k) V(k)
//
// This header is the syntax tree only. Parsing and printing are in
// SchemeParser.h, the tile sizes each atom implies in Tiling.h, legality in
// Validate.h, and footprints in Footprint.h.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SCHEME_SCHEME_H
#define TTILE_SCHEME_SCHEME_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ttile::scheme {

/// R(d): the outermost loop along d, over whatever the atoms below leave.
struct RAtom {
  std::string dim;
};
/// T(n,d): a loop of exactly n iterations along d.
struct TAtom {
  int64_t count = 1;
  std::string dim;
};
/// U(n,d): T(n,d), fully unrolled into the basic block. U(lambda,d) is the
/// parametric unroll whose factor a Lambda above instantiates.
struct UAtom {
  int64_t count = 1; ///< Meaningless when parametric.
  std::string dim;
  bool parametric = false;
};
/// V(d): T(W,d) with W the vector width, vectorized. Innermost, at most one.
/// V(d,L) fixes W at L lanes (a power of two from 4 to the host's widest):
/// on a core whose FMA units are narrower than its widest vectors (AMD Zen
/// 4: 512-bit FMAs run as two 256-bit halves), narrower vectors run at the
/// same rate of lanes and may leave fewer of them idle, three vectors of 8
/// for d = 24 rather than two of 16 with 8 masked.
struct VAtom {
  std::string dim;
  int lanes = 0; ///< 0: scheme::vectorLanes of d's size.
};
/// Lambda(d,[(r1,x1),(r2,x2),...]): a sequence of loops along d, the i-th of
/// r_i iterations over the nest below with its U(lambda,d) instantiated as
/// x_i (thesis Fig. 3.13). Covers sum(r_i * size of the nest below at x_i).
struct LambdaAtom {
  std::string dim;
  std::vector<std::pair<int64_t, int64_t>> parts; ///< (repetitions, factor)
};
/// Hoist(d1,d2,...): keeps the accesses invariant in the loops below over
/// d1, d2, ... in registers: the output accumulators are loaded before these
/// loops, carried through them, and stored once after (thesis ScalP).
struct HoistAtom {
  std::vector<std::string> dims;
};
/// Pack(X) or Pack(X,[a1,a2,...]): copies the footprint of tensor X below this
/// level into a scratch buffer, optionally with its axes permuted (listed by
/// axis name, outermost first), and redirects the accesses below to it.
struct PackAtom {
  std::string tensor;
  std::vector<std::string> permutation; ///< Empty: keep the tensor's order.
};
/// Tpar(n,d): T(n,d) whose iterations run in parallel.
struct TparAtom {
  int64_t count = 1;
  std::string dim;
};
/// Tfused([(d1,n1),(d2,n2),...]): one parallel loop over the product of
/// several tile loops, for when no single dimension has enough iterations.
struct TfusedAtom {
  std::vector<std::pair<std::string, int64_t>> loops; ///< (dim, count)
};

using Atom = std::variant<RAtom, TAtom, UAtom, VAtom, LambdaAtom, HoistAtom,
                          PackAtom, TparAtom, TfusedAtom>;

struct Scheme {
  std::vector<Atom> atoms; ///< Outermost first.

  bool operator==(const Scheme &) const = default;
};

// Atoms compare structurally, so that parse(print(s)) == s can be tested.
inline bool operator==(const RAtom &a, const RAtom &b) { return a.dim == b.dim; }
inline bool operator==(const TAtom &a, const TAtom &b) {
  return a.count == b.count && a.dim == b.dim;
}
inline bool operator==(const UAtom &a, const UAtom &b) {
  return a.parametric == b.parametric && a.dim == b.dim &&
         (a.parametric || a.count == b.count);
}
inline bool operator==(const VAtom &a, const VAtom &b) {
  return a.dim == b.dim && a.lanes == b.lanes;
}
inline bool operator==(const LambdaAtom &a, const LambdaAtom &b) {
  return a.dim == b.dim && a.parts == b.parts;
}
inline bool operator==(const HoistAtom &a, const HoistAtom &b) {
  return a.dims == b.dims;
}
inline bool operator==(const PackAtom &a, const PackAtom &b) {
  return a.tensor == b.tensor && a.permutation == b.permutation;
}
inline bool operator==(const TparAtom &a, const TparAtom &b) {
  return a.count == b.count && a.dim == b.dim;
}
inline bool operator==(const TfusedAtom &a, const TfusedAtom &b) {
  return a.loops == b.loops;
}

/// The atom's name as written in the text form: "R", "T", "Lambda", ...
std::string atomName(const Atom &atom);

/// A visitor made of lambdas, one per atom kind, for std::visit on an Atom:
/// std::visit(Overloaded{[](const RAtom &) {...}, ...}, atom).
template <class... Fs> struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

} // namespace ttile::scheme

#endif // TTILE_SCHEME_SCHEME_H
