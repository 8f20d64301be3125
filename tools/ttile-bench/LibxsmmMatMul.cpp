//===- ttile-bench/LibxsmmMatMul.cpp - libxsmm's small kernels as a peer --===//
//
// libxsmm generates a kernel per (M, N, K, strides) at run time, as ttile
// does, and is the library to beat on small products. It speaks BLAS's
// column-major: the row-major C = A B is its C^T = B^T A^T, so B is its
// first operand and A its second, with M and N swapped. Only its dispatch
// is measured: a problem it has no kernel for is a failure of the peer,
// not a call of its BLAS fallback (ttile-bench links libxsmmnoblas, whose
// BLAS symbols are stubs). Debian 12 ships libxsmm 1.17 as static
// libraries only, so it is linked, not loaded like the BLAS libraries.
//
//===----------------------------------------------------------------------===//

#include "GemmPeers.h"

#include <libxsmm.h>

#include <limits>

namespace ttile::bench {
namespace {

libxsmm_blasint blasInt(int64_t value) {
  if (value > std::numeric_limits<libxsmm_blasint>::max())
    throw Error("libxsmm takes no dimension or stride of " +
                std::to_string(value));
  return static_cast<libxsmm_blasint>(value);
}

class LibxsmmPeer final : public GemmPeer {
public:
  std::string name() const override { return "libxsmm"; }
  std::string version() const override {
    return std::string(LIBXSMM_VERSION) + " (" + libxsmm_get_target_arch() +
           " kernels)";
  }

  void prepare(const MatMulParams &p) override {
    strides_ = gemmStrides(p);
    if (p.broadcastB)
      strides_.strideB = 0;
    // Its A is our B and its B our A: each transposed where ours is.
    const int flags = (p.transB ? LIBXSMM_GEMM_FLAG_TRANS_A : 0) |
                      (p.transA ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
    const float alpha = 1, beta = 0;
    const libxsmm_blasint lda = blasInt(strides_.ldb),
                          ldb = blasInt(strides_.lda),
                          ldc = blasInt(strides_.ldc);
    kernel_ = libxsmm_smmdispatch(blasInt(p.N), blasInt(p.M), blasInt(p.K),
                                  &lda, &ldb, &ldc, &alpha, &beta, &flags,
                                  nullptr);
    if (!kernel_)
      throw Error("libxsmm dispatched no kernel for this problem");
  }

  void run(const MatMulParams &p, const float *A, const float *B,
           float *C) const override {
    for (int64_t item = 0; item < p.batch; ++item)
      kernel_(B + item * strides_.strideB, A + item * strides_.strideA,
              C + item * strides_.strideC);
  }

private:
  libxsmm_smmfunction kernel_ = nullptr;
  GemmStrides strides_{};
};

} // namespace

std::unique_ptr<GemmPeer> libxsmmPeer(int threads) {
  if (threads != 1)
    throw Error("its kernels run on the calling thread: measured on one "
                "thread only");
  return std::make_unique<LibxsmmPeer>();
}

} // namespace ttile::bench
