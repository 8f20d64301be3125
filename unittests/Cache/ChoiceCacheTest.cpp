//===- unittests/Cache/ChoiceCacheTest.cpp - The model's choices on disk --===//

#include "Cache/ChoiceCache.h"

#include "CacheTestUtil.h"

#include <gtest/gtest.h>

namespace ttile::cache {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

CacheKey layoutKey(int64_t i) {
  return CacheKey().add("choice", "contraction layout").add("i", i);
}

TEST(ChoiceCacheTest, StoresAndLoads) {
  TemporaryDirectory directory;
  ChoiceCache cache(directory.path());
  EXPECT_FALSE(cache.load(layoutKey(8)));
  ASSERT_TRUE(cache.store(layoutKey(8), "ij,ij->ij"));
  EXPECT_EQ(ChoiceCache(directory.path()).load(layoutKey(8)), "ij,ij->ij");
  EXPECT_FALSE(cache.load(layoutKey(9))) << "another size";
  // A choice is never taken for a kernel of the same key, nor a kernel for
  // a choice.
  EXPECT_FALSE(KernelCache(directory.path()).load(layoutKey(8)));
}

TEST(ChoiceCacheTest, RemovesADamagedFile) {
  TemporaryDirectory directory;
  ChoiceCache cache(directory.path());
  ASSERT_TRUE(cache.store(layoutKey(8), "ij,ij->ij"));
  fs::path path = RecordStore(directory.path())
                      .pathFor(ChoiceCache::kKind, layoutKey(8).str());
  std::string bytes = testing::readWholeFile(path);
  bytes[bytes.size() / 2] ^= 1;
  testing::writeWholeFile(path, bytes);
  EXPECT_FALSE(cache.load(layoutKey(8)));
  EXPECT_FALSE(fs::exists(path));
}

TEST(ChoiceCacheTest, IsOffWithTtileCacheOff) {
  ScopedEnvironment off("TTILE_CACHE", "off");
  ChoiceCache cache;
  EXPECT_FALSE(cache.store(layoutKey(8), "ij,ij->ij"));
  EXPECT_FALSE(cache.load(layoutKey(8)));
}

} // namespace
} // namespace ttile::cache
