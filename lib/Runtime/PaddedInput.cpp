//===- Runtime/PaddedInput.cpp - The input a valid convolution reads ------===//

#include "Runtime/PaddedInput.h"

#include "Measure/AlignedBuffer.h"

#include <algorithm>
#include <cstring>

namespace ttile::runtime {

PaddedInput::PaddedInput(const ConvProblem &problem) {
  const Conv2DParams &params = problem.params();
  images_ = params.N;
  channels_ = params.C;
  height_ = params.H;
  width_ = params.W;
  padTop_ = params.padTop;
  padLeft_ = params.padLeft;
  validHeight_ = problem.validInputH();
  validWidth_ = problem.validInputW();
  // Rows past validHeight_ are never read, so a taller input only matters
  // when it changes where the next image starts.
  copies_ = padTop_ > 0 || padLeft_ > 0 || validWidth_ != width_ ||
            validHeight_ > height_ ||
            (images_ > 1 && validHeight_ != height_);
}

const float *PaddedInput::prepare(const float *input) const {
  if (!copies_)
    return input;
  int64_t elements = images_ * validHeight_ * validWidth_ * channels_;
  // Reused across runs, and aligned like the buffers kernels are tuned on.
  thread_local measure::AlignedBuffer buffer(0);
  if (buffer.size() < static_cast<size_t>(elements))
    buffer = measure::AlignedBuffer(static_cast<size_t>(elements));

  // Every element of the padded input is written once: zeros outside the
  // caller's input, its pixels inside. The columns of one row that hold
  // input are [firstColumn, endColumn) of the padded row.
  int64_t firstColumn = std::min(padLeft_, validWidth_);
  int64_t endColumn = std::clamp(padLeft_ + width_, firstColumn, validWidth_);
  int64_t pixel = channels_; // Floats per pixel.
  float *out = buffer.data();
  for (int64_t n = 0; n < images_; ++n) {
    const float *image = input + n * height_ * width_ * channels_;
    for (int64_t row = 0; row < validHeight_; ++row, out += validWidth_ * pixel) {
      int64_t inputRow = row - padTop_;
      if (inputRow < 0 || inputRow >= height_) {
        std::fill_n(out, validWidth_ * pixel, 0.0f);
        continue;
      }
      std::fill_n(out, firstColumn * pixel, 0.0f);
      std::memcpy(out + firstColumn * pixel,
                  image + inputRow * width_ * pixel,
                  static_cast<size_t>((endColumn - firstColumn) * pixel) *
                      sizeof(float));
      std::fill_n(out + endColumn * pixel, (validWidth_ - endColumn) * pixel,
                  0.0f);
    }
  }
  return buffer.data();
}

} // namespace ttile::runtime
