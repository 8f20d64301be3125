//===- ttile-record-fuzzer.cpp - Fuzz the cache's file formats ------------===//
//
// Everything the cache reads from disk goes through two decoders: the
// record (RecordStore.h: magic, version, kind, key, payload, checksum) and,
// inside a kernel record, the kernel entry (KernelCache.h: a JSON header
// line, then the object code). For any input:
//
//   - decodeRecord rejects it or accepts exactly the bytes that encodeRecord
//     gives for the payload it returns: a damaged file is never read out of
//     bounds, and never taken for another record;
//   - any input, as a key or a payload, survives an encode/decode round trip;
//   - decodeKernelEntry rejects the input as a payload, or returns an entry
//     whose object code has the size its header announces and which
//     survives its own round trip (when its figures are finite: JSON has no
//     infinities);
//   - any input, as the object code of an entry (or, made ASCII, as its
//     scheme), survives an encode/decode round trip.
//
// Anything else (a crash, an exception, a sanitizer report, a mismatch) is a
// bug.
//
//===----------------------------------------------------------------------===//

#include "Cache/KernelCache.h"
#include "Cache/RecordStore.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

using namespace ttile::cache;

namespace {

constexpr std::string_view kKind = "kernel";
constexpr std::string_view kKey = "op=fuzz;";

void check(bool property, const char *what) {
  if (property)
    return;
  std::fprintf(stderr, "cache format broken: %s\n", what);
  std::abort();
}

bool sameEntry(const KernelEntry &a, const KernelEntry &b) {
  return a.scheme == b.scheme && a.entryName == b.entryName &&
         a.objectCode == b.objectCode && a.seconds == b.seconds &&
         a.percentOfPeak == b.percentOfPeak && a.gflops == b.gflops &&
         a.trials == b.trials && a.tuningSeconds == b.tuningSeconds;
}

bool finite(const KernelEntry &entry) {
  return std::isfinite(entry.seconds) && std::isfinite(entry.percentOfPeak) &&
         std::isfinite(entry.gflops) && std::isfinite(entry.tuningSeconds);
}

void checkRecord(std::string_view input) {
  if (std::optional<std::string> payload = decodeRecord(input, kKind, kKey))
    check(encodeRecord(kKind, kKey, *payload) == input,
          "an accepted record is not the encoding of its payload");

  check(decodeRecord(encodeRecord(kKind, kKey, input), kKind, kKey) == input,
        "a payload does not round-trip");
  check(decodeRecord(encodeRecord(kKind, input, "payload"), kKind, input) ==
            "payload",
        "a key does not round-trip");
}

void checkKernelEntry(std::string_view input) {
  if (std::optional<KernelEntry> entry = decodeKernelEntry(input)) {
    check(input.ends_with(entry->objectCode),
          "the object code is not the end of the payload");
    if (finite(*entry)) {
      std::optional<KernelEntry> again =
          decodeKernelEntry(encodeKernelEntry(*entry));
      check(again && sameEntry(*again, *entry),
            "an accepted entry does not round-trip");
    }
  }

  // Schemes are printScheme's ASCII; JSON strings must be UTF-8.
  KernelEntry arbitrary;
  for (char c : input)
    arbitrary.scheme.push_back(static_cast<char>(c & 0x7f));
  arbitrary.entryName = "ttile_kernel";
  arbitrary.objectCode = input;
  arbitrary.trials = static_cast<int>(input.size());
  std::optional<KernelEntry> decoded =
      decodeKernelEntry(encodeKernelEntry(arbitrary));
  check(decoded && sameEntry(*decoded, arbitrary),
        "arbitrary bytes as scheme and object code do not round-trip");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  checkRecord(input);
  checkKernelEntry(input);
  return 0;
}
