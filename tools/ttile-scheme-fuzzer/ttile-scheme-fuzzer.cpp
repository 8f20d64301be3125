//===- ttile-scheme-fuzzer.cpp - Fuzz the scheme parser and printer -------===//
//
// For any input, parseScheme either throws ttile::Error(InvalidScheme) or
// returns a scheme s with parseScheme(printScheme(s)) == s, and printing is
// then a fixed point. Anything else (another exception, a crash, a
// sanitizer report, a mismatch) is a bug.
//
//===----------------------------------------------------------------------===//

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace ttile;

namespace {

[[noreturn]] void failRoundTrip(const char *what, const std::string &text) {
  std::fprintf(stderr, "round trip broken: %s for '%s'\n", what, text.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  scheme::Scheme parsed;
  try {
    parsed = scheme::parseScheme(text);
  } catch (const Error &error) {
    if (error.code() != ErrorCode::InvalidScheme)
      failRoundTrip("parse error with a code other than InvalidScheme",
                    std::string(text));
    return 0;
  }
  std::string printed = scheme::printScheme(parsed);
  scheme::Scheme reparsed;
  try {
    reparsed = scheme::parseScheme(printed);
  } catch (const Error &) {
    failRoundTrip("the printed form does not parse", printed);
  }
  if (!(reparsed == parsed))
    failRoundTrip("parse(print(s)) != s", printed);
  if (scheme::printScheme(reparsed) != printed)
    failRoundTrip("print(parse(t)) != t for canonical t", printed);
  return 0;
}
