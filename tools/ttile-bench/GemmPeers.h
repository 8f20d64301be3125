//===- ttile-bench/GemmPeers.h - The BLAS libraries, loaded at run time -*- C++ -*-===//
//
// The peers of `ttile-bench matmul`: OpenBLAS, BLIS and MKL, each through
// its own cblas_sgemm. They all export that symbol, so none is linked:
// each is dlopen()ed with RTLD_LOCAL, which keeps its symbols out of the
// others' way, and its functions are looked up in its own handle. That
// keeps them in one process, on the same data, and makes each optional at
// run time: a library that is not installed is reported missing, with
// where it was looked for. (RTLD_DEEPBIND would also bind each library's
// calls to itself first, but the sanitizers' runtimes refuse it, and
// nothing the bench links exports a BLAS symbol.)
//
// Batched problems loop over the items, one cblas_sgemm each, as a caller
// without a batched interface would. Each library runs on the threads it
// is given (its own set-threads function); OpenBLAS and BLIS are the
// Debian packages, MKL the PyPI wheel (scripts/setup).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_GEMMPEERS_H
#define TTILE_TOOLS_TTILE_BENCH_GEMMPEERS_H

#include "ttile/ttile.h"

#include <memory>
#include <string>
#include <vector>

namespace ttile::bench {

/// One library's sgemm over ttile::MatMulParams (row-major, transposes,
/// strides, batch), without epilogue: C = A B.
class GemmPeer {
public:
  virtual ~GemmPeer() = default;
  virtual std::string name() const = 0;
  virtual std::string version() const = 0;
  /// Sets up for `params` (a primitive, for oneDNN) before the timed runs.
  virtual void prepare(const MatMulParams &params) { (void)params; }
  /// C = A B for the `params` of the last prepare(). With
  /// `params.constantB`, a peer that lays B out ahead reads that instead.
  virtual void run(const MatMulParams &params, const float *A, const float *B,
                   float *C) const = 0;
  /// Given B once, untimed, where the `params` of the last prepare() have
  /// constantB: a peer that lays B out ahead (oneDNN) does so here; the
  /// others read run()'s B.
  virtual void setConstantB(const float *B) { (void)B; }
};

/// oneDNN's matmul primitive on the caller's strides (batch, transposes
/// and broadcast as plain memory descriptors), on the threads of
/// setOneDnnThreads(). Throws ttile::Error when ttile-bench was built
/// without oneDNN.
std::unique_ptr<GemmPeer> oneDnnMatMulPeer();

/// libxsmm's JIT-compiled small-matrix kernel for the problem, on the
/// calling thread: its dispatch, which declines what it has no kernel for,
/// rather than its BLAS fallback. Throws ttile::Error when ttile-bench was
/// built without libxsmm, or for more than one thread.
std::unique_ptr<GemmPeer> libxsmmPeer(int threads);

/// Each operand's row stride and item stride as stored: the params', or the
/// dense ones where those are 0. strideB is B's whatever broadcastB says.
struct GemmStrides {
  int64_t lda, ldb, ldc, strideA, strideB, strideC;
};
GemmStrides gemmStrides(const MatMulParams &params);

/// A library that could not be loaded, and why.
struct MissingPeer {
  std::string name, reason;
};

struct GemmPeers {
  std::vector<std::unique_ptr<GemmPeer>> loaded;
  std::vector<MissingPeer> missing;
};

/// Every BLAS library found, set to `threads` threads. MKL is looked for in
/// $TTILE_MKL_LIBRARY, then /opt/mkl/lib (scripts/setup), then the loader's
/// path. OpenBLAS and BLIS get the kernels of the host's vector ISA through
/// OPENBLAS_CORETYPE and BLIS_ARCH_TYPE where those are unset; BLIS's name
/// becomes the number BLIS 0.9.0 reads (the .cpp says why).
GemmPeers loadGemmPeers(int threads);

/// "OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=0 (skx)", for the report.
std::string blasKernelChoice();

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_GEMMPEERS_H
