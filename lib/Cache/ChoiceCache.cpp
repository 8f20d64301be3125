//===- Cache/ChoiceCache.cpp - The model's choices kept across runs -------===//

#include "Cache/ChoiceCache.h"

#include "Support/Logging.h"

#include <utility>

namespace ttile::cache {

ChoiceCache::ChoiceCache(std::optional<std::filesystem::path> directory) {
  if (directory)
    store_.emplace(std::move(*directory));
}

std::optional<std::string> ChoiceCache::load(const CacheKey &key) const {
  if (!store_)
    return std::nullopt;
  return store_->read(kKind, key.str());
}

void ChoiceCache::logChoiceIgnored(std::string_view question,
                                   std::string_view choice) {
  log().debug("{}: the cached choice \"{}\" names none of the candidates "
              "it can build; choosing again",
              question, choice);
}

bool ChoiceCache::store(const CacheKey &key, std::string_view choice) const {
  return store_ && store_->write(kKind, key.str(), choice);
}

} // namespace ttile::cache
