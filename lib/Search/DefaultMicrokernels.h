//===- Search/DefaultMicrokernels.h - Built-in class tables ----*- C++ -*-===//
//
// The class tables a host uses until the offline stage has measured its
// own, so that the first tuning on a fresh install does not wait minutes
// for it. They are data, BuiltInTables/*.json: the offline stage's tables
// from real machines (AMD Zen 5, an Intel Xeon), each naming the CPUs it is
// chosen for, and for AVX2 one measured on the Xeon with
// TTILE_TARGET=haswell (docs/Microkernels.md). The matmul tables are
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

/// The built-in table for the host: among those of its register file, the
/// one whose hosts name its CPU, else the first listed. Classes only, no
/// measurements, origin BuiltIn, no key.
MicrokernelTable builtInMicrokernelTable(const MicrokernelFamily &family,
                                         const HostInfo &host);

} // namespace ttile::search

#endif // TTILE_SEARCH_DEFAULTMICROKERNELS_H
