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
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H
#define TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H

#include "Networks.h"

#include <string_view>

namespace ttile::tools {

/// The layer `descriptor` describes, named after it unless it names
/// itself. Throws ttile::Error naming the offending key for malformed
/// text, unknown or repeated keys, and missing ones (ic, oc, ih, kh). The
/// parameters themselves are checked by ttile::Conv2D.
NamedLayer parseLayerDescriptor(std::string_view descriptor);

/// The layer of a known network named `text` ("Yolo9000-18"), else the
/// layer the descriptor `text` describes.
NamedLayer parseLayer(std::string_view text);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_LAYERDESCRIPTOR_H
