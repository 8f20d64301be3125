//===- Runtime/OutOfMemory.h - bad_alloc as a ttile::Error ------*- C++ -*-===//
//
// ttile/Error.h promises that every failure reaching a user is a
// ttile::Error. Memory runs out in the standard library's allocations
// (a tuning buffer, a layout conversion, a bias of K zeros), as
// std::bad_alloc: the operators' public functions run their bodies through
// withOutOfMemoryAsError, which turns it into ErrorCode::Internal.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_OUTOFMEMORY_H
#define TTILE_RUNTIME_OUTOFMEMORY_H

#include "ttile/Error.h"

#include <new>
#include <string>
#include <string_view>

namespace ttile::runtime {

/// action(), with std::bad_alloc rethrown as "out of memory in <where>".
///
/// Always inline (the try is free): run() passes through it on every
/// call, and a call boundary there kept the caller's buffers in memory,
/// where a small matmul's run() must keep them in registers
/// (Runtime/BufferChecks.h).
template <class Action>
[[gnu::always_inline]] inline decltype(auto)
withOutOfMemoryAsError(std::string_view where, Action &&action) {
  try {
    return action();
  } catch (const std::bad_alloc &) {
    throw Error("out of memory in " + std::string(where),
                ErrorCode::Internal);
  }
}

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_OUTOFMEMORY_H
