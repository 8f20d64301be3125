//===- Cache/ChoiceCache.h - Model choices kept across runs -----*- C++ -*-===//
//
// Some operators choose among forms of their problem at construction, by
// the data-movement model and without compiling anything: a Contraction
// the order its kernel reads and writes each tensor in
// (Runtime/LayoutReordering.h), a ContractionChain which pair goes first
// and the intermediate's layout (Runtime/ChainPlan.h). The model prices
// each form's untuned scheme, and every process paid for it: 111 ms to
// plan MTTKRP (250^3) on AMD Zen 5, against 35 ms for its two kernels,
// when the kernel cache links those in under one.
//
// The choice cache keeps each choice, as the text naming the form chosen,
// under a key of the question and its environment (a CacheKey: ttile and
// LLVM versions, CPU), so that the next process constructs without asking
// the model. The caller uses a choice read back only where it names one of
// the forms it enumerates now, and chooses again otherwise (a hand-made
// record, a form ttile no longer offers). A stale choice (the microkernel
// table measured again since) is still a form the operator computes
// exactly; at worst the model would now choose another.
//
// Records are "choice" records of the RecordStore, and fail as the kernel
// cache's do: absent, disabled (TTILE_CACHE=off), untrusted (logged and
// removed) or unwritable, the caller simply asks the model.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CACHE_CHOICECACHE_H
#define TTILE_CACHE_CHOICECACHE_H

#include "Cache/KernelCache.h"
#include "Cache/RecordStore.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ttile::cache {

class ChoiceCache {
public:
  static constexpr std::string_view kKind = "choice";

  /// A cache in `directory`; disabled when none.
  explicit ChoiceCache(
      std::optional<std::filesystem::path> directory = defaultCacheDirectory());

  /// The choice stored for `key`; none when absent, disabled or untrusted.
  std::optional<std::string> load(const CacheKey &key) const;
  /// The first of `candidates` whose `nameOf` is the choice stored for
  /// `key`; null when none is stored, or when it names none of them (then
  /// logged, as `question`'s, and the caller chooses again).
  template <class Candidates, class NameOf>
  auto *find(const CacheKey &key, Candidates &candidates, NameOf nameOf,
             std::string_view question) const {
    decltype(&*candidates.begin()) found = nullptr;
    if (std::optional<std::string> choice = load(key)) {
      for (auto &candidate : candidates)
        if (nameOf(candidate) == *choice) {
          found = &candidate;
          break;
        }
      if (!found)
        logChoiceIgnored(question, *choice);
    }
    return found;
  }
  /// False when disabled, or (logged) when the write fails.
  bool store(const CacheKey &key, std::string_view choice) const;

  /// Logs (debug) that the choice of `question` was not taken.
  static void logChoiceIgnored(std::string_view question,
                               std::string_view choice);

private:
  std::optional<RecordStore> store_;
};

} // namespace ttile::cache

#endif // TTILE_CACHE_CHOICECACHE_H
