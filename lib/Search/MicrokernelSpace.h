//===- Search/MicrokernelSpace.h - Candidate microkernels -------*- C++ -*-===//
//
// The microkernels the offline stage measures (paper 4.1, thesis 5.2): every
// choice of unroll factors whose register use stays near the number of
// vector registers. A microkernel holds in registers
//
//   out    = product of the factors of the output dimensions (w h k),
//   params = factor of the vectorized dimension x product of the factors
//            of the other unrolled dimensions (k x r s c),
//
// the output accumulators and the vectors of the other vectorized operand.
// The bounds on both are data, one named instance per register file, so
// that another ISA is a new instance, not new code. A load-bound family
// (MicrokernelFamily::loadBound) takes half the lower bounds.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_MICROKERNELSPACE_H
#define TTILE_SEARCH_MICROKERNELSPACE_H

#include "Search/Microkernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttile {
struct HostInfo;
}

namespace ttile::search {

/// Which unroll factors are worth measuring on a register file.
struct UnrollBounds {
  std::string name; ///< "vregs32": part of the table's cache key.
  int minTotal = 0; ///< out + params, inclusive.
  int maxTotal = 0;
  int minOutput = 0; ///< out, inclusive.
  int maxOutput = 0;
  int minFactor = 1; ///< Every non-window factor, inclusive.
  int maxFactor = 15;
  std::vector<int> windowSizes; ///< The factors a window dimension takes.
  /// When two window dimensions exceed 1 they are equal: 3x3, not 3x5.
  bool squareWindows = true;

  /// 32 vector registers (AVX-512, also Neon/SVE): the paper's bounds,
  /// 16 <= out + params <= 36 and 14 <= out <= 28, windows 1, 3, 5, 7,
  /// factors 1 to 15 (Fig. 6's range). 1939 conv2d candidates.
  static const UnrollBounds &vectorRegisters32();
  /// 16 vector registers (AVX2): the same rule at half the register file,
  /// 8 <= out + params <= 18 and 6 <= out <= 14 (docs/Microkernels.md).
  static const UnrollBounds &vectorRegisters16();
  /// The bounds exactly as the paper counted them: its 3059 conv2d
  /// candidates are the factors 0 to 15 (a loop from 0), 1120 of which
  /// have a c factor of 0 and compute nothing. For reference only: the
  /// offline stage measures vectorRegisters32().
  static const UnrollBounds &paperAvx512();
  /// The instance for the host's register file.
  static const UnrollBounds &forHost(const HostInfo &host);
};

struct RegisterUse {
  int64_t output = 0;
  int64_t parameters = 0;
  int64_t total() const { return output + parameters; }
};

RegisterUse registerUse(const MicrokernelFamily &family,
                        const Microkernel &kernel);

/// Whether the kernel's factors and register use satisfy the bounds.
bool withinBounds(const MicrokernelFamily &family, const UnrollBounds &bounds,
                  const Microkernel &kernel);

/// Every microkernel within the bounds, in lexicographic order of the
/// factors (family.unrolled order).
std::vector<Microkernel> enumerate(const MicrokernelFamily &family,
                                   const UnrollBounds &bounds);

/// The quick subset: the candidates unrolled only along the vectorized and
/// the combination dimensions (for conv2d, the slice c = w = r = s = 1 of
/// the paper's Fig. 6), which hold the classes that matter most and take
/// seconds to measure.
std::vector<Microkernel>
quickSubset(const MicrokernelFamily &family,
            const std::vector<Microkernel> &candidates);

} // namespace ttile::search

#endif // TTILE_SEARCH_MICROKERNELSPACE_H
