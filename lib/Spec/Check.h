//===- Spec/Check.h - Compare an output against the reference ---*- C++ -*-===//
//
// Small outputs are checked at every point, large ones at N random points
// (thesis 4.5). The tolerance is relative to the magnitude of the terms
// summed into each element, so that cancellation does not cause false
// alarms: |actual - expected| <= relTol * sum(|terms|) + absTol.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SPEC_CHECK_H
#define TTILE_SPEC_CHECK_H

#include "Spec/Spec.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ttile::spec {

struct CheckOptions {
  double relTol = 1e-4;
  double absTol = 1e-6;
  /// Outputs with at most this many elements are checked in full.
  int64_t fullCheckLimit = 1 << 16;
  /// Number of random points checked on larger outputs.
  int64_t samples = 512;
  uint64_t seed = 0x7711e;
  /// How many mismatches to keep for the report.
  int maxReported = 8;
};

struct Mismatch {
  std::vector<int64_t> coords; ///< Along the output's axes.
  float expected = 0, actual = 0;
};

struct CheckResult {
  bool ok = true;
  int64_t pointsChecked = 0;
  int64_t mismatchCount = 0;
  std::vector<Mismatch> firstMismatches;
  /// "3 of 512 points differ; first: O[0,2,5,17] expected 1.25 got 0.5 ..."
  std::string report(const Spec &spec) const;
};

/// Checks buffers[0] (the computed output) against the reference computed
/// from the other buffers, in Spec::tensors order.
CheckResult checkOutput(const Spec &spec, std::span<const float *const> buffers,
                        const CheckOptions &options = {});

} // namespace ttile::spec

#endif // TTILE_SPEC_CHECK_H
