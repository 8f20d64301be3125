//===- ttile-bench/OneDnnMatMul.cpp - oneDNN's matmul as a peer -----------===//
//
// oneDNN describes every operand of its matmul primitive as a plain tensor
// with strides: A is {batch, M, K} with strides {strideA, lda, 1}, or
// {strideA, 1, lda} when transposed; a broadcast B has batch 1. B given to
// every call is read as it is, as by the BLAS libraries and ttile's per-run
// MatMul; a constant B (constantB) is reordered once into the layout the
// primitive picks (format `any`), as an inference engine's weights are.
//
//===----------------------------------------------------------------------===//

#include "GemmPeers.h"
#include "OneDnnConv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>

namespace ttile::bench {
namespace {

using dnnl::memory;

/// A batch of rows x columns matrices, row-major with row stride `ld`,
/// items `itemStride` apart, read transposed when `transposed`.
memory::desc matrix(int64_t items, int64_t rows, int64_t columns, int64_t ld,
                    int64_t itemStride, bool transposed) {
  // The logical rows x columns matrix, stored transposed or not.
  memory::dims strides = transposed ? memory::dims{itemStride, 1, ld}
                                    : memory::dims{itemStride, ld, 1};
  return memory::desc({items, rows, columns}, memory::data_type::f32, strides);
}

class OneDnnMatMulPeer final : public GemmPeer {
public:
  OneDnnMatMulPeer() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

  std::string name() const override { return "oneDNN"; }
  std::string version() const override { return oneDnnVersion(); }

  void prepare(const MatMulParams &p) override {
    const GemmStrides s = gemmStrides(p);
    memory::desc a = matrix(p.batch, p.M, p.K, s.lda, s.strideA, p.transA);
    memory::desc b = matrix(p.broadcastB ? 1 : p.batch, p.K, p.N, s.ldb,
                            s.strideB, p.transB);
    memory::desc c = matrix(p.batch, p.M, p.N, s.ldc, s.strideC, false);
    memory::desc anyB(b.get_dims(), memory::data_type::f32,
                      memory::format_tag::any);
    try {
      dnnl::matmul::primitive_desc desc(engine_, a, p.constantB ? anyB : b, c);
      primitive_.emplace(desc);
      descs_ = {a, b, c, desc.weights_desc()};
    } catch (const dnnl::error &error) {
      throw Error(std::string("oneDNN has no matmul for this problem: ") +
                  error.what());
    }
    laidOutB_.reset();
  }

  void setConstantB(const float *B) override {
    memory given(descs_[1], engine_, const_cast<float *>(B));
    laidOutB_.emplace(descs_[3], engine_);
    dnnl::reorder(given, *laidOutB_).execute(stream_, given, *laidOutB_);
    stream_.wait();
  }

  void run(const MatMulParams &p, const float *A, const float *B,
           float *C) const override {
    if (p.constantB && !laidOutB_)
      throw Error("oneDNN: the constant B was not laid out");
    memory a(descs_[0], engine_, const_cast<float *>(A));
    memory b = p.constantB ? *laidOutB_
                           : memory(descs_[1], engine_, const_cast<float *>(B));
    memory c(descs_[2], engine_, C);
    primitive_->execute(stream_, {{DNNL_ARG_SRC, a},
                                  {DNNL_ARG_WEIGHTS, b},
                                  {DNNL_ARG_DST, c}});
    stream_.wait();
  }

private:
  dnnl::engine engine_;
  mutable dnnl::stream stream_;
  std::optional<dnnl::matmul> primitive_;
  /// A, B as given, C, and B as the primitive reads it.
  std::vector<memory::desc> descs_;
  std::optional<memory> laidOutB_; ///< A constant B, reordered once.
};

} // namespace

std::unique_ptr<GemmPeer> oneDnnMatMulPeer() {
  return std::make_unique<OneDnnMatMulPeer>();
}

} // namespace ttile::bench
