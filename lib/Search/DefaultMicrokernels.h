//===- Search/DefaultMicrokernels.h - Built-in class tables ----*- C++ -*-===//
//
// The class tables a host uses until the offline stage has measured its
// own, so that the first tuning on a fresh install does not wait minutes
// for it. One per register file: the AVX-512 one is the result of the full
// stage on a real machine, the AVX2 one is hand-picked from the register
// tiles of BLIS and oneDNN (docs/Microkernels.md). The matmul tables are
// derived from the conv2d ones through the mapping i = h, j = k, k = c.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_DEFAULTMICROKERNELS_H
#define TTILE_SEARCH_DEFAULTMICROKERNELS_H

#include "Search/MicrokernelTable.h"

namespace ttile {
struct HostInfo;
}

namespace ttile::search {

/// The built-in table for the host's register file: classes only, no
/// measurements, origin BuiltIn, no key.
MicrokernelTable builtInMicrokernelTable(const MicrokernelFamily &family,
                                         const HostInfo &host);

} // namespace ttile::search

#endif // TTILE_SEARCH_DEFAULTMICROKERNELS_H
