//===- ttile/Error.h - The error type of the ttile API ----------*- C++ -*-===//
//
// Every failure that reaches a user of ttile is a ttile::Error: invalid
// parameters, malformed schemes, unusable buffers, corrupt cache files. The
// message names the offending field or atom and the rule it breaks.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ERROR_H
#define TTILE_ERROR_H

#include <stdexcept>
#include <string>

// Exported from libttile.so, which is built with hidden visibility: a
// consumer catches ttile::Error by its type.
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace ttile {

/// The broad category of an error, mirrored by the C API's status codes.
enum class ErrorCode {
  InvalidArgument = 1, ///< Bad parameters, shapes or buffers from the caller.
  InvalidScheme = 2,   ///< A scheme that does not parse or does not validate.
  CompileFailed = 3,   ///< LLVM could not lower or JIT-compile a kernel.
  CacheError = 4,      ///< A cache entry that is unreadable or untrusted.
  Internal = 5, ///< A broken invariant inside ttile (a bug), or no memory.
};

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message,
                 ErrorCode code = ErrorCode::InvalidArgument)
      : std::runtime_error(message), code_(code) {}

  ErrorCode code() const noexcept { return code_; }

private:
  ErrorCode code_;
};

} // namespace ttile

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif // TTILE_ERROR_H
