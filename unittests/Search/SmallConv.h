//===- unittests/Search/SmallConv.h - A layer quick to tune -----*- C++ -*-===//
#ifndef TTILE_UNITTESTS_SEARCH_SMALLCONV_H
#define TTILE_UNITTESTS_SEARCH_SMALLCONV_H

#include "Spec/SpecBuilders.h"

namespace ttile::testing {

/// 32 x 16 channels, 8x8, 3x3, with a bias: each candidate compiles and
/// runs in milliseconds, and its structured space still holds 1598
/// distinct candidates.
inline spec::Spec smallConv() {
  spec::ConvShape shape;
  shape.K = 32;
  shape.C = 16;
  shape.outH = shape.outW = 8;
  shape.R = shape.S = 3;
  shape.bias = true;
  return spec::conv2d(shape);
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SEARCH_SMALLCONV_H
