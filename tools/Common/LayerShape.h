//===- tools/Common/LayerShape.h - A layer's shape and work -----*- C++ -*-===//
//
// How the tools that report on layers (ttile-tune, ttile-bench) name a
// layer's shape and count its work.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_LAYERSHAPE_H
#define TTILE_TOOLS_COMMON_LAYERSHAPE_H

#include "ttile/ttile.h"

#include <string>

namespace ttile::tools {

/// "K,C,H/W,R/S" as in thesis Fig. 6.1, with the output size, "AxB" where
/// the two axes differ, then the stride, padding, dilation, batch and
/// groups where they are not the defaults, and the epilogue as a layer
/// descriptor writes it (LayerDescriptor.h): "64,64,56,3 s2 p1",
/// "256,64,56,1 res relu".
std::string formatShape(const Conv2DParams &params);

/// MFLOP of one run, 2 per multiply-add, counting groups; 0 when the
/// parameters give no output.
double workMflop(const Conv2DParams &params);

/// The part of workMflop() whose multiply-adds read the input rather than
/// its padding: what a kernel that skips the padding's taps computes, as
/// oneDNN's and ttile's do. Equal to workMflop() for a valid convolution.
double usefulWorkMflop(const Conv2DParams &params);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_LAYERSHAPE_H
