//===- unittests/Cache/KernelCacheTest.cpp - Keys, entries, warm starts ---===//

#include "Cache/KernelCache.h"

#include "CacheTestUtil.h"
#include "JIT/Kernel.h"
#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "Spec/SpecBuilders.h"
#include "Support/Host.h"
#include "ttile/Version.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace ttile::cache {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

/// For matmul(4, 16, 8) on any host: its vectors have 8 lanes, AVX2's.
constexpr const char *kScheme = "R(i) T(8,k) U(2,j) V(j,8)";

CacheKey matmulKey(int64_t I, int64_t J, int64_t K) {
  return CacheKey().add("op", "matmul").add("I", I).add("J", J).add("K", K);
}

KernelEntry sampleEntry() {
  KernelEntry entry;
  entry.scheme = kScheme;
  entry.entryName = jit::kKernelEntryName;
  entry.objectCode = std::string("\x7f" "ELF\0\n\n", 7);
  entry.seconds = 1.5e-6;
  entry.percentOfPeak = 61.25;
  entry.gflops = 123.5;
  entry.trials = 42;
  entry.tuningSeconds = 3.75;
  return entry;
}

void expectSameEntry(const KernelEntry &actual, const KernelEntry &expected) {
  EXPECT_EQ(actual.scheme, expected.scheme);
  EXPECT_EQ(actual.entryName, expected.entryName);
  EXPECT_EQ(actual.objectCode, expected.objectCode);
  EXPECT_EQ(actual.seconds, expected.seconds);
  EXPECT_EQ(actual.percentOfPeak, expected.percentOfPeak);
  EXPECT_EQ(actual.gflops, expected.gflops);
  EXPECT_EQ(actual.trials, expected.trials);
  EXPECT_EQ(actual.tuningSeconds, expected.tuningSeconds);
}

//===--- Keys -------------------------------------------------------------===//

TEST(CacheKeyTest, StartsWithTheEnvironment) {
  std::string expected = std::string("ttile=") + versionString +
                         ";llvm=" + llvmVersionString +
                         ";cpu=" + host().cpuName + ";features=";
  std::string text = matmulKey(4, 16, 8).str();
  EXPECT_EQ(text.substr(0, expected.size()), expected);
  EXPECT_TRUE(text.ends_with(";op=matmul;I=4;J=16;K=8;")) << text;
}

TEST(CacheKeyTest, EscapesSeparators) {
  CacheKey oneField = CacheKey().add("a", "1;b=2");
  CacheKey twoFields = CacheKey().add("a", "1").add("b", "2");
  EXPECT_NE(oneField.str(), twoFields.str());

  std::vector<std::pair<std::string, std::string>> fields =
      parseCacheKey(CacheKey().add("x\\y", "1;b=2").str());
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].first, "ttile");
  EXPECT_EQ(fields[2], std::make_pair(std::string("cpu"), host().cpuName));
  EXPECT_EQ(fields[4], std::make_pair(std::string("x\\y"), std::string("1;b=2")));
  EXPECT_TRUE(isEnvironmentField("features"));
  EXPECT_FALSE(isEnvironmentField("x\\y"));
}

//===--- Entries ----------------------------------------------------------===//

TEST(KernelEntryTest, RoundTrips) {
  std::string whyNot;
  std::optional<KernelEntry> decoded =
      decodeKernelEntry(encodeKernelEntry(sampleEntry()), &whyNot);
  ASSERT_TRUE(decoded) << whyNot;
  expectSameEntry(*decoded, sampleEntry());
}

TEST(KernelEntryTest, RejectsMalformedPayloads) {
  std::string payload = encodeKernelEntry(sampleEntry());
  for (size_t length = 0; length < payload.size(); ++length)
    EXPECT_FALSE(decodeKernelEntry(payload.substr(0, length)))
        << "prefix of " << length << " bytes";
  EXPECT_FALSE(decodeKernelEntry(payload + "x"));

  std::string whyNot;
  EXPECT_FALSE(decodeKernelEntry("[1, 2]\n", &whyNot));
  EXPECT_EQ(whyNot, "kernel entry: the header is not a JSON object");
  EXPECT_FALSE(decodeKernelEntry("{\"scheme\": 1}\n", &whyNot));
  EXPECT_TRUE(whyNot.starts_with("kernel entry: bad header: ")) << whyNot;
  std::string negativeSize = payload;
  negativeSize.insert(negativeSize.find("\"objectBytes\":") + 14, "-");
  EXPECT_FALSE(decodeKernelEntry(negativeSize));
}

/// The integer fields hold integers of their type: casting 1e22 to int is
/// undefined (the record fuzzer found it), -1 as a size would wrap.
TEST(KernelEntryTest, RejectsCountsOutOfTheirType) {
  const std::string payload = encodeKernelEntry(sampleEntry());
  auto withField = [&](std::string_view field, std::string_view value) {
    std::string edited = payload;
    size_t start = edited.find("\"" + std::string(field) + "\":") +
                   field.size() + 3;
    size_t end = edited.find_first_of(",}", start);
    return edited.replace(start, end - start, value);
  };
  ASSERT_TRUE(decodeKernelEntry(withField("trials", "42")));
  for (std::string_view trials : {"1e22", "2.5", "-1", "4294967296"}) {
    std::string whyNot;
    EXPECT_FALSE(decodeKernelEntry(withField("trials", trials), &whyNot))
        << trials;
    EXPECT_EQ(whyNot, "kernel entry: bad header: trials is not a count");
  }
  for (std::string_view size : {"7.0", "1e30", "-7", "\"7\""}) {
    std::string whyNot;
    EXPECT_FALSE(decodeKernelEntry(withField("objectBytes", size), &whyNot))
        << size;
    EXPECT_TRUE(whyNot.starts_with("kernel entry: bad header")) << whyNot;
  }
}

//===--- The cache --------------------------------------------------------===//

TEST(KernelCacheTest, StoresAndLoads) {
  TemporaryDirectory directory;
  KernelCache cache(directory.path());
  ASSERT_TRUE(cache.enabled());
  EXPECT_FALSE(cache.load(matmulKey(4, 16, 8)));
  ASSERT_TRUE(cache.store(matmulKey(4, 16, 8), sampleEntry()));

  std::optional<KernelEntry> loaded =
      KernelCache(directory.path()).load(matmulKey(4, 16, 8));
  ASSERT_TRUE(loaded);
  expectSameEntry(*loaded, sampleEntry());
  EXPECT_FALSE(cache.load(matmulKey(4, 16, 9))) << "another shape";
}

/// A warm start: the object code of a kernel compiled by one KernelCache
/// user is linked and run by another, without LLVM's code generator.
TEST(KernelCacheTest, WarmStartRunsTheCachedCode) {
  TemporaryDirectory directory;
  spec::Spec spec = spec::matmul(4, 16, 8);
  jit::Kernel compiled =
      jit::compileKernel(spec, scheme::parseScheme(kScheme));
  KernelEntry stored;
  stored.scheme = scheme::printScheme(compiled.scheme());
  stored.entryName = jit::kKernelEntryName;
  stored.objectCode = compiled.objectCode();
  ASSERT_TRUE(KernelCache(directory.path()).store(matmulKey(4, 16, 8), stored));

  std::optional<KernelEntry> loaded =
      KernelCache(directory.path()).load(matmulKey(4, 16, 8));
  ASSERT_TRUE(loaded);
  std::optional<jit::Kernel> linked = linkEntry(spec, *loaded);
  ASSERT_TRUE(linked);
  EXPECT_EQ(scheme::printScheme(linked->scheme()), stored.scheme);

  measure::TensorBuffers buffers(spec, 7, 1e30f);
  linked->run(buffers.pointers());
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  EXPECT_TRUE(result.ok) << result.report(spec);
}

TEST(KernelCacheTest, DoesNotLinkGarbageObjectCode) {
  TemporaryDirectory directory;
  KernelCache cache(directory.path());
  // Well-formed records (the checksum holds) with unusable code, as only a
  // hand-made record or a bug could give.
  KernelEntry garbage = sampleEntry();
  ASSERT_TRUE(cache.store(matmulKey(4, 16, 8), garbage));
  std::optional<KernelEntry> loaded = cache.load(matmulKey(4, 16, 8));
  ASSERT_TRUE(loaded);
  spec::Spec spec = spec::matmul(4, 16, 8);
  EXPECT_FALSE(linkEntry(spec, *loaded));

  jit::Kernel compiled = jit::compileKernel(spec, scheme::parseScheme(kScheme));
  KernelEntry truncated = garbage;
  truncated.objectCode = compiled.objectCode().substr(
      0, compiled.objectCode().size() / 2);
  EXPECT_FALSE(linkEntry(spec, truncated));
  KernelEntry misnamed = garbage;
  misnamed.objectCode = compiled.objectCode();
  misnamed.entryName = "no_such_symbol";
  EXPECT_FALSE(linkEntry(spec, misnamed));
  KernelEntry foreignScheme = misnamed;
  foreignScheme.entryName = jit::kKernelEntryName;
  foreignScheme.scheme = "R(i) T(4,k) V(j)"; // k is 8 here.
  EXPECT_FALSE(linkEntry(spec, foreignScheme));
}

TEST(KernelCacheTest, RemovesAnEntryThatDoesNotDecode) {
  TemporaryDirectory directory;
  KernelCache cache(directory.path());
  RecordStore store(directory.path());
  CacheKey key = matmulKey(4, 16, 8);
  ASSERT_TRUE(store.write(KernelCache::kKind, key.str(), "{}\nnot an entry"));
  EXPECT_FALSE(cache.load(key));
  EXPECT_FALSE(fs::exists(store.pathFor(KernelCache::kKind, key.str())));
}

TEST(KernelCacheTest, RemovesADamagedFile) {
  TemporaryDirectory directory;
  KernelCache cache(directory.path());
  CacheKey key = matmulKey(4, 16, 8);
  ASSERT_TRUE(cache.store(key, sampleEntry()));
  fs::path path = RecordStore(directory.path()).pathFor(KernelCache::kKind,
                                                        key.str());
  std::string bytes = testing::readWholeFile(path);
  bytes.back() ^= 1;
  testing::writeWholeFile(path, bytes);
  EXPECT_FALSE(cache.load(key));
  EXPECT_FALSE(fs::exists(path));
}

TEST(KernelCacheTest, IsOffWithTtileCacheOff) {
  ScopedEnvironment off("TTILE_CACHE", "off");
  KernelCache cache;
  EXPECT_FALSE(cache.enabled());
  EXPECT_FALSE(cache.store(matmulKey(4, 16, 8), sampleEntry()));
  EXPECT_FALSE(cache.load(matmulKey(4, 16, 8)));
  EXPECT_FALSE(cache.lockForTuning(matmulKey(4, 16, 8)).held());
}

/// The protocol of KernelCache.h, run by several threads at once: the lock
/// and the re-check make exactly one of them tune.
TEST(KernelCacheTest, TunesEachKeyOnce) {
  TemporaryDirectory directory;
  KernelCache cache(directory.path());
  CacheKey key = matmulKey(4, 16, 8);
  std::atomic<int> tunings{0};
  auto loadOrTune = [&] {
    if (std::optional<KernelEntry> entry = cache.load(key))
      return *entry;
    KeyLock lock = cache.lockForTuning(key);
    if (std::optional<KernelEntry> entry = cache.load(key))
      return *entry;
    ++tunings;
    cache.store(key, sampleEntry());
    return sampleEntry();
  };
  std::vector<std::future<KernelEntry>> users;
  for (int user = 0; user < 4; ++user)
    users.push_back(std::async(std::launch::async, loadOrTune));
  for (std::future<KernelEntry> &user : users)
    expectSameEntry(user.get(), sampleEntry());
  EXPECT_EQ(tunings, 1);
}

} // namespace
} // namespace ttile::cache
