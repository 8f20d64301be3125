//===- tools/Common/LayerDescriptor.h - benchdnn-style layers ---*- C++ -*-===//
//
// `--layer` (ttile-tune, ttile-bench) takes a convolution in oneDNN benchdnn's notation:
// a run of <key><number> pairs, '_' allowed between them, such as
//
//   ic64oc64ih56kh3ph1          g1mb1_ic3ih224_oc64oh112_kh7sh2ph3n"conv1"
//
//   mb  batch (default 1)           g   groups (default 1)
//   ic  input channels              oc  output channels
//   ih  input height                iw  input width (default ih)
//   oh  output height (optional)    ow  output width (optional)
//   kh  kernel height               kw  kernel width (default kh)
//   sh  stride height (default 1)   sw  stride width (default sh)
//   ph  top padding                 pw  left padding (default ph)
//   dh  dilation height MINUS ONE   dw  likewise for the width (default dh)
//   n"name" or a trailing nname: the layer's name
//
// Dilation follows benchdnn: dh0 (the default) is an ordinary convolution,
// dh1 leaves one row between taps (ttile's dilationH = 2).
//
// Padding follows benchdnn too: ph is the top padding, and a missing ph is
// derived from oh when oh is given, as benchdnn does. The bottom padding is
// ph, unless oh is given and needs another: then it is what makes the
// output oh rows high. An oh that no padding gives is an error. Likewise
// for the width.
//
// The fused epilogue, output = act(conv + bias + residual), follows the
// shape as words of its own ('_' allowed before each, as between pairs),
// where benchdnn has its --attr-post-ops option:
//
//   ic64oc256ih56kh1_res_relu   ic32oc32ih112kh3ph1g32_relu6
//
//   res              a residual (Conv2DParams::residual)
//   relu             ReLU
//   relu6            Clamp(0, 6)
//   clamp<lo>:<hi>   Clamp(lo, hi): clamp0:6, clamp-1:1.5
//   leakyrelu<a>     LeakyReLU(a): leakyrelu0.1
//   silu hardswish sigmoid tanh
//
// At most one activation. Numbers are decimal, without exponent. None of
// these words starts with 'n', so they never open a name; but a trailing
// unquoted name takes the rest of the text, so an epilogue must come before
// it. A trailing name that ends in what reads as an epilogue ("nconv_relu")
// is an error rather than a silently plain layer: quote it, or move the
// epilogue. The epilogue may also follow a network's layer name
// (parseLayer: "ResNet50-14_res_relu").
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H
#define TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H

#include "Networks.h"

#include <string>
#include <string_view>

namespace ttile::tools {

/// The layer `descriptor` describes, named after it unless it names
/// itself. Throws ttile::Error naming the offending key for malformed
/// text, unknown or repeated keys, and missing ones (ic, oc, ih, kh). The
/// parameters themselves are checked by ttile::Conv2D.
NamedLayer parseLayerDescriptor(std::string_view descriptor);

/// The layer of a known network named `text` ("Yolo9000-18"), that layer
/// with the epilogue `text` adds after a '_' ("Yolo9000-18_leakyrelu0.1"),
/// else the layer the descriptor `text` describes.
NamedLayer parseLayer(std::string_view text);

/// The epilogue of `params` as a descriptor writes it, each word after a
/// '_': "_res_relu", "_clamp0:6"; "" for none. parseLayerDescriptor reads
/// it back.
std::string epilogueSuffix(const Conv2DParams &params);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H
