//===- ttile-record-fuzzer.cpp - Fuzz the cache's record format -----------===//
//
// For any input, decodeRecord rejects it or accepts exactly the bytes that
// encodeRecord gives for the payload it returns: a damaged file is never
// read out of bounds, and never taken for another record. Any input, as a
// key or a payload, also survives an encode/decode round trip. Anything
// else (a crash, a sanitizer report, a mismatch) is a bug.
//
//===----------------------------------------------------------------------===//

#include "Cache/RecordStore.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace ttile::cache;

namespace {

constexpr std::string_view kKind = "kernel";
constexpr std::string_view kKey = "op=fuzz;";

void check(bool property, const char *what) {
  if (property)
    return;
  std::fprintf(stderr, "record format broken: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);

  if (std::optional<std::string> payload = decodeRecord(input, kKind, kKey))
    check(encodeRecord(kKind, kKey, *payload) == input,
          "an accepted record is not the encoding of its payload");

  check(decodeRecord(encodeRecord(kKind, kKey, input), kKind, kKey) == input,
        "a payload does not round-trip");
  check(decodeRecord(encodeRecord(kKind, input, "payload"), kKind, input) ==
            "payload",
        "a key does not round-trip");
  return 0;
}
