//===- onnxruntime/TransposeOp.h - ttile.Transpose at the edges -*- C++ -*-===//
//
// The custom operator ttile.Transpose: ONNX's Transpose for the two
// permutations ttile-onnx places at the edges of a graph it keeps NHWC,
// [0,2,3,1] (NCHW to NHWC) and [0,3,1,2] (back). ONNX Runtime's own took
// 170 us a run for the YOLOv5 backbone's 3-channel 256x256 input on two Zen
// 4 threads, where ONNX Runtime's NCHWc convolution reads the input as it
// is; a 2D transpose of each image in tiles takes 79 (ttile-onnx bench
// --profile).
//
//   input:   X, 4D
//   output:  Y, X's axes in the order `perm` gives
//   attributes: perm, [0,2,3,1] or [0,3,1,2]
//
// Nothing is tuned: it is a pass over memory. Each image is a matrix,
// C x HW to HW x C or the reverse, transposed in tiles of 32 rows by 256
// columns, the tiles tasks on the session's intra-op threads.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_TRANSPOSEOP_H
#define TTILE_ONNXRUNTIME_TRANSPOSEOP_H

#include "OpSupport.h"

namespace ttile::onnxruntime {

/// The kernel of one node: its permutation, checked at creation.
class TransposeKernel {
public:
  TransposeKernel(const OrtApi &api, const OrtKernelInfo *info,
                  const SessionSettings &settings);
  OrtStatusPtr ComputeV2(OrtKernelContext *context);

private:
  const OrtApi &api_;
  bool toChannelsLast_ = true; ///< perm [0,2,3,1]; else [0,3,1,2].
};

/// Input X, required.
struct TransposeOp : TtileOp<TransposeOp, TransposeKernel, 1, 1> {
  static constexpr const char *kName = "Transpose";
  using TtileOp::TtileOp;
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_TRANSPOSEOP_H
