//===- Search/MicrokernelClasses.h - The classes search draws from -*- C++ -*-===//
#ifndef TTILE_SEARCH_MICROKERNELCLASSES_H
#define TTILE_SEARCH_MICROKERNELCLASSES_H

#include "Search/Microkernel.h"

#include <vector>

namespace ttile::search {

/// The microkernel classes the online stage draws from for `family` on this
/// host: the table of the offline stage stored in the cache when its key
/// (CPU, features, versions) matches, else the built-in default table for
/// the host's ISA. Loaded once per process.
const std::vector<MicrokernelClass> &microkernelClasses(
    const MicrokernelFamily &family);

} // namespace ttile::search

#endif // TTILE_SEARCH_MICROKERNELCLASSES_H
