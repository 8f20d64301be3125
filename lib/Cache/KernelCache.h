//===- Cache/KernelCache.h - Tuned kernels kept across runs -----*- C++ -*-===//
//
// Tuning a layer takes seconds to minutes; the kernel cache keeps the winner
// (its scheme, its measured figures and its object code) so that the next
// run of the application links it at once, without running LLVM's
// optimizer or code generator.
//
// Keys. A CacheKey holds everything the winner depends on: the operator
// and each of its parameters (shape, strides, padding, dilation, groups,
// layouts, activation, element type, threads), added by the caller, and the
// environment, added by the constructor: the ttile and LLVM versions, the
// CPU name and its features. An entry tuned by another ttile, LLVM or CPU
// therefore never matches, and object code for another instruction set is
// never linked. The full key text is stored in the record and compared on
// every load; the file name is only its hash.
//
// Tuning protocol. Several processes may share the directory and tune the
// same layer at once; the lock keeps them from doing the work twice:
//
//   if (auto entry = cache.load(key)) ... use it        // fast path
//   KeyLock lock = cache.lockForTuning(key);            // waits for a tuner
//   if (auto entry = cache.load(key)) ... use it        // it finished first
//   tune; cache.store(key, winner);                     // then unlock
//
// A second process blocks on the lock, then finds the first one's entry.
// The lock only saves work: when it cannot be taken (a read-only
// directory), both tune, and the atomic writes leave one complete entry.
//
// Faults. A truncated, corrupt or foreign entry is logged once, removed,
// and reported as absent, so that the caller tunes again and replaces it.
// Failed writes are logged and ignored. Nothing here throws or aborts
// because of what is on disk.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CACHE_KERNELCACHE_H
#define TTILE_CACHE_KERNELCACHE_H

#include "Cache/RecordStore.h"
#include "JIT/Kernel.h"
#include "Spec/Spec.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttile::cache {

/// What a tuned kernel depends on, as canonical text "field=value;..." in
/// the order the fields were added. '\', ';' and '=' inside fields and
/// values are escaped with '\', so two different keys never share a text.
class CacheKey {
public:
  /// Starts with the environment: ttile=, llvm=, cpu= and features=.
  CacheKey();

  CacheKey &add(std::string_view field, std::string_view value);
  CacheKey &add(std::string_view field, int64_t value);

  const std::string &str() const { return text_; }

private:
  std::string text_;
};

/// The fields of a key's text, unescaped, in order; for tools that display
/// keys. Text that is not a well-formed key yields what it could read.
std::vector<std::pair<std::string, std::string>>
parseCacheKey(std::string_view text);

/// The environment fields every CacheKey starts with.
bool isEnvironmentField(std::string_view field);

/// A tuned kernel: its scheme, how it performed, and its object code.
struct KernelEntry {
  std::string scheme;    ///< Canonical text (Scheme/SchemeParser.h).
  std::string entryName; ///< The symbol to call in objectCode.
  std::string objectCode;
  double seconds = 0; ///< Of one call.
  double percentOfPeak = 0;
  double gflops = 0;
  int trials = 0; ///< Candidates measured while tuning.
  /// The trials the tuning was asked for, or INT_MAX when it measured the
  /// whole space: a later tune() asking for more than this tunes again.
  /// Records of 0.7.0 and before lack it; it is then `trials`.
  int trialsAsked = 0;
  double tuningSeconds = 0;
};

/// The payload of a kernel record: a one-line JSON header with the scheme,
/// the figures and the object's size, a newline, then the object's bytes.
std::string encodeKernelEntry(const KernelEntry &entry);
/// None, with the reason in `whyNot` if given, unless the header is
/// well-formed and the object has exactly the size it announces.
std::optional<KernelEntry> decodeKernelEntry(std::string_view payload,
                                             std::string *whyNot = nullptr);

class KernelCache {
public:
  static constexpr std::string_view kKind = "kernel";

  /// A cache in `directory`; disabled when none.
  explicit KernelCache(
      std::optional<std::filesystem::path> directory = defaultCacheDirectory());

  bool enabled() const { return store_.has_value(); }

  /// The entry for `key`; none when absent, disabled, or untrusted (then
  /// logged and removed).
  std::optional<KernelEntry> load(const CacheKey &key) const;
  /// False when disabled, or (logged) when the write fails.
  bool store(const CacheKey &key, const KernelEntry &entry) const;
  /// The lock of the protocol above if nobody holds it now, else one that
  /// holds nothing (KeyLock::ifFree).
  KeyLock lockIfFree(const CacheKey &key) const;
  /// The lock of the protocol above, waited for `waitLimit` at most (see
  /// KeyLock); one that holds nothing when disabled.
  KeyLock lockForTuning(const CacheKey &key,
                        std::chrono::duration<double> waitLimit =
                            std::chrono::duration<double>::max()) const;

private:
  std::optional<RecordStore> store_;
};

/// The entry's kernel for `spec`, linked into this process (jit::linkKernel:
/// no LLVM optimizer or code generator). None (logged) when the entry's
/// scheme does not validate for the spec or the JIT rejects its object code:
/// only a foreign or hand-made record that passed the checksum can do that.
/// The caller then tunes again and stores the result over the entry.
std::optional<jit::Kernel> linkEntry(const spec::Spec &spec,
                                     const KernelEntry &entry);

} // namespace ttile::cache

#endif // TTILE_CACHE_KERNELCACHE_H
