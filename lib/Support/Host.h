//===- Support/Host.h - Facts about the CPU ttile runs on -------*- C++ -*-===//
//
// The vector width, register count and caches of the host, read once from
// LLVM's host detection and sysfs. Code generation, the offline stage and
// the cost model all take these from here, so that a test can substitute an
// AVX2 description on an AVX-512 machine.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_HOST_H
#define TTILE_SUPPORT_HOST_H

#include <cstdint>
#include <string>
#include <vector>

namespace ttile {

struct CacheLevel {
  int level = 1;
  int64_t bytes = 0; ///< Per core for private levels.
};

struct HostInfo {
  std::string cpuName;   ///< LLVM's name, e.g. "znver5", "skylake-avx512".
  std::string features;  ///< "+avx512f,+fma,..." as LLVM wants them.
  bool hasAVX512 = false;
  bool hasAVX2 = false;
  int vectorWidth = 4;        ///< f32 lanes in the preferred vector.
  int vectorRegisters = 16;   ///< Architectural vector registers.
  std::vector<CacheLevel> dataCaches; ///< L1d, L2, L3, innermost first.

  /// An AVX-512 description (32 x 16 lanes), for tests and tables.
  static HostInfo avx512();
  /// An AVX2 description (16 x 8 lanes).
  static HostInfo avx2();
  /// One line: "znver5, AVX-512 (16 x f32, 32 registers), L1d 48 KiB, ..."
  std::string summary() const;
};

/// The machine this process runs on, detected once.
const HostInfo &host();

} // namespace ttile

#endif // TTILE_SUPPORT_HOST_H
