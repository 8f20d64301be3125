//===- Cache/ReportOnce.h - Log each cache problem once ---------*- C++ -*-===//
//
// A damaged record or an unwritable directory shows up again on every
// lookup; the log says so once per process, not once per lookup, so that a
// tuning run over a read-only cache does not bury everything else.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CACHE_REPORTONCE_H
#define TTILE_CACHE_REPORTONCE_H

#include <string_view>

namespace ttile::cache {

/// True the first time this process asks about `subject` (say, "read
/// <path>"), false afterwards. Safe to call from several threads.
bool reportOnce(std::string_view subject);

} // namespace ttile::cache

#endif // TTILE_CACHE_REPORTONCE_H
