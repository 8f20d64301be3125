//===- Support/Host.h - Facts about the CPU ttile runs on -------*- C++ -*-===//
//
// The vector width, register count and caches of the host, read once from
// LLVM's host detection and sysfs. Code generation, the offline stage and
// the cost model all take these from here, so that a test can substitute an
// AVX2 description on an AVX-512 machine.
//
// TTILE_TARGET=<CPU> (an LLVM CPU name: haswell, skylake-avx512, znver4)
// makes the process generate, measure, tune and cache kernels for that CPU
// instead: its name, features, vector width and registers replace the
// host's (the caches stay the host's). The host must have every feature of
// the target, since the kernels run here; a name LLVM does not know, or a
// target the host cannot run, is logged and the host is used. That is how
// the AVX2 microkernel tables are measured on an AVX-512 machine, and how a
// test pins the code it checks to one CPU.
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
  /// Lines per set; 0 where the system does not say (then the data-
  /// movement model treats the cache as fully associative).
  int ways = 0;
};

struct HostInfo {
  std::string cpuName;   ///< LLVM's name, e.g. "znver5", "skylake-avx512".
  std::string features;  ///< "+avx512f,+fma,..." as LLVM wants them.
  bool hasAVX512 = false;
  bool hasAVX2 = false;
  int vectorWidth = 4;        ///< f32 lanes in the preferred vector.
  /// f32 lanes of the narrowest vector whose multiply-adds run at the FMA
  /// units' full rate of lanes: vectorWidth, but 8 on AMD Zen 4, whose
  /// units are 256 bits wide (a 512-bit FMA takes both, one a cycle; two
  /// 256-bit ones issue a cycle). The search narrows the vectors there
  /// where it leaves fewer lanes idle (scheme::searchLanes).
  int fullRateLanes = 4;
  int vectorRegisters = 16;   ///< Architectural vector registers.
  std::vector<CacheLevel> dataCaches; ///< L1d, L2, L3, innermost first.

  /// An AVX-512 description (32 x 16 lanes), for tests and tables.
  static HostInfo avx512();
  /// An AVX2 description (16 x 8 lanes).
  static HostInfo avx2();
  /// One line: "znver5, AVX-512 (16 x f32, 32 registers), L1d 48 KiB, ..."
  std::string summary() const;
};

/// The machine this process generates kernels for, detected once: the
/// host, or the CPU TTILE_TARGET names.
const HostInfo &host();

} // namespace ttile

#endif // TTILE_SUPPORT_HOST_H
