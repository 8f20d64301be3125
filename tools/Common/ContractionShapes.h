//===- tools/Common/ContractionShapes.h - The contraction benchmarks -*- C++ -*-===//
//
// The contractions ttile-bench and ttile-tune measure (issue 22,
// docs/benchmarks/contractions.md), by set:
//
//   tccg        the TCCG benchmark's 48 cases (HPAC/tccg, benchmark.py), with
//               the sizes its rule gives FP32 tensors of 200 MiB
//   tccg-small  the same with 50 MiB tensors, a quarter of the budget, so
//               that a run of all 48 with peers stays under 30 minutes
//   extra       PolyBench's doitgen (LARGE)
//
// and single problems as an einsum or in TCCG notation with sizes.
//
// TCCG writes C-A-B with each tensor's FIRST index contiguous
// (column-major): "abcd-aebf-dfce". Reversing each index list gives the
// same memory as numpy's row-major einsum, "fbea,ecfd->dcba".
//
// The size rule (benchmark.py): with d the most indices of any of the
// three tensors, every index is near (budget / element size)^(1/d); an
// index contiguous in some tensor is rounded up to a multiple of 24, any
// other to the nearest multiple of 4 (at least 4); the intensli cases fix
// one index at 24. For double and 200 MiB it gives the published sizes,
// which the table keeps and a test compares.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_CONTRACTIONSHAPES_H
#define TTILE_TOOLS_COMMON_CONTRACTIONSHAPES_H

#include "ttile/ttile.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::tools {

struct NamedContraction {
  std::string name; ///< "tccg20", or the text it was parsed from.
  ContractionParams params;
  int tccgId = 0; ///< The TCCG case, 1 to 48; 0 for another problem.
};

/// One case of the TCCG benchmark.
struct TccgCase {
  int id;               ///< 1 to 48, benchmark.py's order.
  const char *set;      ///< "ccsd", "ccsd_t", "ao2mo", "intensli".
  const char *notation; ///< "abcd-aebf-dfce".
  const char *fixed;    ///< Indices the set fixes at 24 (intensli).
  const char *publishedSizes; ///< "a:72,b:72,...": double, 200 MiB.
};
const std::vector<TccgCase> &tccgCases();

/// The sizes of the rule above for tensors of `tensorBytes` bytes of
/// `elementBytes` each.
std::map<char, int64_t> tccgSizes(const TccgCase &tccg, double tensorBytes,
                                  int elementBytes);

/// "abcd-aebf-dfce" as "fbea,ecfd->dcba"; throws ttile::Error for text
/// that is not three letter lists joined by '-'.
std::string tccgToEinsum(std::string_view notation);

const std::vector<std::string> &contractionSetNames();

/// Throws ttile::Error naming the sets for an unknown `set`.
std::vector<NamedContraction> contractionSet(std::string_view set);

/// An einsum ("abc,cd->abd") or a TCCG notation ("abc-abd-dc"), with sizes
/// as "a:72,b:24" (runtime::parseContractionSizes). Throws ttile::Error.
NamedContraction parseContraction(std::string_view notation,
                                  std::string_view sizes);

/// Whether an einsum has three operands: a ContractionChain's. A malformed
/// one is not: Contraction() then says what is wrong with it.
bool isChain(const ContractionParams &params);

/// The chain of a three-operand `params` (isChain).
ContractionChainParams chainParams(const ContractionParams &params);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_CONTRACTIONSHAPES_H
