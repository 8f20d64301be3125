//===- Runtime/PaddedInput.h - The input a valid convolution reads -*- C++ -*-===//
//
// ttile's kernels compute valid convolutions on a pre-padded input (thesis
// Fig. 6.1): every input element they read exists. A convolution with
// padding therefore runs on a copy of the caller's input with a border of
// zeros, of validInputH x validInputW pixels (ConvProblem). The copy costs
// one pass over the input per run; generating kernels that read the border
// as zeros themselves is left to a later version.
//
// No copy is made when the caller's buffer already is that input: no
// padding at the top or left, the same row pitch, and, with more than one
// image, the same image size.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_PADDEDINPUT_H
#define TTILE_RUNTIME_PADDEDINPUT_H

#include "Runtime/ConvParams.h"

#include <cstdint>

namespace ttile::runtime {

class PaddedInput {
public:
  explicit PaddedInput(const ConvProblem &problem);

  /// Whether prepare() copies.
  bool copies() const { return copies_; }

  /// The kernel's input made from `input` (NHWC): `input` itself when no
  /// copy is needed, else a buffer of the calling thread, valid until its
  /// next call of prepare().
  const float *prepare(const float *input) const;

private:
  int64_t images_, channels_;
  int64_t height_, width_;           ///< Of the caller's input.
  int64_t padTop_, padLeft_;
  int64_t validHeight_, validWidth_; ///< Of the kernel's input.
  bool copies_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_PADDEDINPUT_H
