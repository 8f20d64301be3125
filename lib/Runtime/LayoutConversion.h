//===- Runtime/LayoutConversion.h - NCHW on NHWC kernels --------*- C++ -*-===//
//
// ttile's kernels compute on NHWC input, RSCK weights and NHWK output. A
// problem in the layout of ONNX and PyTorch (NCHW input, KCRS weights, NKHW
// output) runs on the same kernel: run() converts the input and the weights
// into buffers of the calling thread (ThreadBuffers.h), runs the kernel into a
// third one, and converts that into the caller's output. A depthwise
// convolution with a channel multiplier converts likewise, around a kernel that
// vectorizes the groups (Spec/SpecBuilders.h). docs/Design.md ("Layouts") has
// the measurements behind converting once per call rather than in the
// kernel.
//
// Each conversion is a set of cache-blocked 2D transposes.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_LAYOUTCONVERSION_H
#define TTILE_RUNTIME_LAYOUTCONVERSION_H

#include "Runtime/ConvParams.h"

#include <cstdint>

namespace ttile::runtime {

/// Transposes each of `images` row-major rows x cols matrices: with
/// rows = C and cols = H*W, NCHW to NHWC; with rows = H*W and cols = C,
/// NHWC to NCHW. `src` and `dst` must not overlap.
void transposeImages(const float *src, int64_t images, int64_t rows,
                     int64_t cols, float *dst);

/// KCRS (OIHW) weights [K][C][R*S] to RSCK (HWIO) [R*S][C][K]. With groups,
/// C is the channels of one group, C/groups: both layouts hold the groups
/// along K. `src` and `dst` must not overlap.
void kcrsToRsck(const float *src, int64_t K, int64_t C, int64_t RS, float *dst);

/// The buffers the kernel of one problem computes on, made from the
/// caller's: for NCHW, converted to NHWC and RSCK; for a depthwise
/// convolution with a channel multiplier, whose kernel holds the multiplier
/// outside the groups (spec::ConvShape), with the weights, bias and output
/// reordered so.
class LayoutConversion {
public:
  explicit LayoutConversion(const ConvProblem &problem);

  /// Whether the kernel computes on other buffers than the caller's.
  bool converts() const { return nchw_ || multiplier_ > 1; }

  /// The caller's own buffers when nothing converts; else converted ones
  /// and an output, all buffers of the calling thread, valid until its next
  /// call. `caller.bias` holds K values (zeros for none); the residual is
  /// null or output-shaped, and may be the output itself; the weights are
  /// null when constant (laid out once through kernelWeights()).
  RoleBuffers toKernel(const RoleBuffers &caller) const;

  /// The weights as the kernel's spec stores them: the caller's own, or
  /// converted into a buffer of the calling thread, valid until its next
  /// call.
  const float *kernelWeights(const float *weights) const;

  /// Writes the kernel's output into the caller's `output` in the problem's
  /// layout; nothing to do when they are the same buffer.
  void fromKernel(const RoleBuffers &kernel, float *output) const;

private:
  /// The residual in the kernel's output layout.
  const float *kernelResidual(const float *residual) const;

  bool nchw_;
  int64_t images_, channels_, inputPixels_;
  int64_t outputChannels_, outputPixels_;
  int64_t groupChannels_, kernelPixels_; ///< C/groups and R*S.
  int64_t groups_;
  int64_t multiplier_; ///< K/groups of a depthwise problem, else 1.
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_LAYOUTCONVERSION_H
