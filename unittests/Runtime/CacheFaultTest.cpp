//===- unittests/Runtime/CacheFaultTest.cpp - Conv2D over a faulty cache --===//
//
// Whatever happens to the cache directory, Conv2D computes the right result:
// a record that is damaged, foreign or unusable is detected, logged once
// per process, and replaced by tuning again; a directory that is missing,
// unwritable or full only costs the time of tuning again. docs/Cache.md
// lists the faults; each has a test here, through the public API, with the
// output checked against the reference every time.
//
// Unit tests of the pieces (every truncation and byte flip of a record, the
// store's writes and locks) are in unittests/Cache.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "Cache/KernelCache.h"
#include "Cache/RecordStore.h"
#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "LogCapture.h"
#include "Runtime/ConvParams.h"
#include "Support/Host.h"
#include "ttile/Version.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ttile {
namespace {

namespace fs = std::filesystem;
using spdlog::level::warn;
using testing::ConvCase;
using testing::IsolatedCache;
using testing::LogCapture;
using testing::quickTune;
using testing::ScopedEnvironment;
using testing::smallLayer;

/// A good record of the small layer, and what it is made of.
struct GoodRecord {
  std::string bytes;
  std::string key;
  cache::KernelEntry entry;

  /// The key with `from` replaced by `to`: another ttile's or CPU's.
  std::string keyWith(const std::string &from, const std::string &to) const {
    std::string changed = key;
    size_t at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << key;
    if (at != std::string::npos)
      changed.replace(at, from.size(), to);
    return changed;
  }
  /// The good entry in a well-formed record of another key.
  std::string withKey(const std::string &otherKey) const {
    return cache::encodeRecord(cache::KernelCache::kKind, otherKey,
                               cache::encodeKernelEntry(entry));
  }
  /// A well-formed record (the checksum holds) of a changed entry: only a
  /// bug, or a hand-made file, gives one.
  std::string withEntry(
      const std::function<void(cache::KernelEntry &)> &change) const {
    cache::KernelEntry changed = entry;
    change(changed);
    return cache::encodeRecord(cache::KernelCache::kKind, key,
                               cache::encodeKernelEntry(changed));
  }
  std::string withPayload(const std::string &payload) const {
    return cache::encodeRecord(cache::KernelCache::kKind, key, payload);
  }
};

struct CacheFault {
  const char *name;
  /// The file that replaces the good record.
  std::function<std::string(const GoodRecord &)> make;
  /// What the one warning about it says.
  const char *logged;
};

/// gtest prints a parameter's bytes otherwise.
void PrintTo(const CacheFault &fault, std::ostream *out) { *out << fault.name; }

std::string randomBytes(size_t size) {
  std::mt19937_64 random(7);
  std::string bytes(size, '\0');
  for (char &byte : bytes)
    byte = static_cast<char>(random());
  return bytes;
}

const CacheFault kFaults[] = {
    // Accidents: a crash or a full disk mid-write, a bad copy, bit rot.
    {"Truncated",
     [](const GoodRecord &good) {
       return good.bytes.substr(0, good.bytes.size() / 2);
     },
     ": truncated; it will be rebuilt"},
    {"Empty", [](const GoodRecord &) { return std::string(); },
     ": not a ttile record"},
    {"RandomBytes",
     [](const GoodRecord &good) { return randomBytes(good.bytes.size()); },
     ": not a ttile record"},
    {"FlippedBit",
     [](const GoodRecord &good) {
       std::string bytes = good.bytes;
       bytes[bytes.size() / 2] ^= 0x08;
       return bytes;
     },
     ": checksum mismatch"},
    // Versions and machines.
    {"AnotherRecordFormat",
     [](const GoodRecord &good) {
       std::string bytes = good.bytes;
       bytes[8] = 2; // The u32 after the magic.
       return bytes;
     },
     ": record format 2, this ttile reads format 1"},
    {"AnotherCpuAtThisPath",
     [](const GoodRecord &good) {
       return good.withKey(good.keyWith(";cpu=" + host().cpuName + ";",
                                        ";cpu=another-cpu;"));
     },
     ": a record for another key"},
    {"AnotherTtileAtThisPath",
     [](const GoodRecord &good) {
       return good.withKey(good.keyWith(
           std::string("ttile=") + versionString + ";", "ttile=0.0.1;"));
     },
     ": a record for another key"},
    // Sound records whose content cannot be used.
    {"PayloadNotAnEntry",
     [](const GoodRecord &good) { return good.withPayload("{}\nno entry"); },
     ": kernel entry: bad header"},
    {"ObjectShorterThanAnnounced",
     [](const GoodRecord &good) {
       std::string payload = cache::encodeKernelEntry(good.entry);
       return good.withPayload(payload.substr(0, payload.size() - 1));
     },
     ": kernel entry: the header announces"},
    {"GarbageObjectCode",
     [](const GoodRecord &good) {
       return good.withEntry(
           [](cache::KernelEntry &entry) { entry.objectCode = "not ELF"; });
     },
     "cannot use the cached kernel"},
    {"HalfAnObject",
     [](const GoodRecord &good) {
       return good.withEntry([](cache::KernelEntry &entry) {
         entry.objectCode.resize(entry.objectCode.size() / 2);
       });
     },
     "cannot use the cached kernel"},
    {"SchemeThatDoesNotParse",
     [](const GoodRecord &good) {
       return good.withEntry(
           [](cache::KernelEntry &entry) { entry.scheme = "T(16,k U(2"; });
     },
     "cannot use the cached kernel T(16,k U(2"},
    {"SchemeOfAnotherProblem",
     [](const GoodRecord &good) {
       return good.withEntry(
           [](cache::KernelEntry &entry) { entry.scheme = "V(x)"; });
     },
     "cannot use the cached kernel V(x)"},
    {"AnotherEntryPoint",
     [](const GoodRecord &good) {
       return good.withEntry(
           [](cache::KernelEntry &entry) { entry.entryName = "main"; });
     },
     "its entry point is 'main'"},
};

/// Every test tunes the small layer into a cache of its own.
class CacheFaultTest : public ::testing::Test {
protected:
  cache::CacheKey key() const {
    return runtime::ConvProblem(params).cacheKey();
  }
  fs::path recordPath() const {
    return cache::RecordStore(cache.path())
        .pathFor(cache::KernelCache::kKind, key().str());
  }

  /// Tunes into the cache and returns the record written.
  GoodRecord tuneAndStore() {
    Conv2D conv(params);
    conv.tune(quickTune());
    GoodRecord good;
    good.bytes = testing::readWholeFile(recordPath());
    good.key = key().str();
    std::optional<cache::KernelEntry> entry =
        cache::KernelCache(cache.path()).load(key());
    EXPECT_TRUE(entry) << "no record at " << recordPath();
    if (entry)
      good.entry = *entry;
    return good;
  }

  /// A new Conv2D's tune() measures candidates (no usable winner in the
  /// cache) and computes the right result.
  void expectRetunes() {
    Conv2D conv(params);
    conv.tune(quickTune());
    EXPECT_FALSE(conv.tuneInfo().cacheHit);
    EXPECT_GE(conv.tuneInfo().trials, 1);
    reference.expectMatches(reference.run(conv));
  }
  /// A new Conv2D's tune() links the cached winner and is right.
  void expectCacheHit() {
    Conv2D conv(params);
    conv.tune(quickTune());
    EXPECT_TRUE(conv.tuneInfo().cacheHit);
    reference.expectMatches(reference.run(conv));
  }

  IsolatedCache cache;
  Conv2DParams params = smallLayer();
  ConvCase reference{params};
};

/// One per kind of bad record, named after it.
class BadRecordTest : public CacheFaultTest,
                      public ::testing::WithParamInterface<CacheFault> {};

/// The fault is met twice, by run() and then by tune(): each time the
/// result is right, the log says so once in all, and tune() rebuilds the
/// record.
TEST_P(BadRecordTest, IsLoggedOnceAndReplacedByTuning) {
  const CacheFault &fault = GetParam();
  GoodRecord good = tuneAndStore();
  LogCapture log(warn);

  testing::writeWholeFile(recordPath(), fault.make(good));
  Conv2D untuned(params);
  reference.expectMatches(reference.run(untuned));
  EXPECT_FALSE(untuned.tuneInfo().tuned) << "run() used the faulty record";
  untuned.tune(quickTune());
  EXPECT_FALSE(untuned.tuneInfo().cacheHit);
  reference.expectMatches(reference.run(untuned));

  testing::writeWholeFile(recordPath(), fault.make(good));
  expectRetunes();

  EXPECT_EQ(log.count(warn, fault.logged), 1) << log.str();
  expectCacheHit();
}

INSTANTIATE_TEST_SUITE_P(
    Faults, BadRecordTest, ::testing::ValuesIn(kFaults),
    [](const ::testing::TestParamInfo<CacheFault> &info) {
      return std::string(info.param.name);
    });

/// A cache directory filled on another machine (or by another ttile): its
/// records sit at the paths of their own keys, so this one never even reads
/// them. It tunes, and leaves them for the machine they belong to.
TEST_F(CacheFaultTest, RecordsOfAnotherCpuAreNeverUsed) {
  GoodRecord good = tuneAndStore();
  std::string foreignKey =
      good.keyWith(";cpu=" + host().cpuName + ";", ";cpu=another-cpu;");
  fs::path foreignPath = cache::RecordStore(cache.path())
                             .pathFor(cache::KernelCache::kKind, foreignKey);
  testing::writeWholeFile(foreignPath, good.withKey(foreignKey));
  fs::remove(recordPath());

  LogCapture log(warn);
  expectRetunes();
  EXPECT_EQ(testing::readWholeFile(foreignPath), good.withKey(foreignKey));
  EXPECT_EQ(cache.records().size(), 2u);
  EXPECT_TRUE(log.messages().empty()) << log.str();
}

/// Another tuner of the same problem that never lets go of the lock (a
/// stopped process) delays tune() by lockWaitSeconds at most; it then
/// tunes on its own, says so, and stores its winner.
TEST_F(CacheFaultTest, AStuckLockHolderDelaysTuneByTheWaitLimitAtMost) {
  cache::KeyLock stuck = cache::KernelCache().lockForTuning(key());
  ASSERT_TRUE(stuck.held());
  LogCapture log(warn);
  Conv2D conv(params);
  TuneOptions options = quickTune();
  options.lockWaitSeconds = 0.2;
  conv.tune(options);
  EXPECT_TRUE(conv.tuneInfo().tuned);
  EXPECT_FALSE(conv.tuneInfo().cacheHit);
  EXPECT_EQ(log.count(warn, "going on without it"), 1) << log.str();
  EXPECT_TRUE(fs::exists(recordPath()));
}

TEST_F(CacheFaultTest, LockWaitSecondsMustBeANumberOfSeconds) {
  Conv2D conv(params);
  for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN()}) {
    TuneOptions options = quickTune();
    options.lockWaitSeconds = bad;
    try {
      conv.tune(options);
      ADD_FAILURE() << "lockWaitSeconds " << bad << " was accepted";
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find("lockWaitSeconds ("),
                std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find("must be a number of seconds"),
                std::string::npos)
          << error.what();
    }
  }
  TuneOptions forever = quickTune();
  forever.lockWaitSeconds = std::numeric_limits<double>::infinity();
  EXPECT_NO_THROW(conv.tune(forever));
}

/// A read-only directory: records are read but none can be written or
/// locked. Root ignores permissions, so the test drops that privilege on
/// the threads that use the cache.
TEST_F(CacheFaultTest, UnwritableDirectory) {
  tuneAndStore();
  const fs::perms write = fs::perms::owner_write | fs::perms::group_write |
                          fs::perms::others_write;
  const fs::path kernels = recordPath().parent_path();
  fs::permissions(cache.path(), write, fs::perm_options::remove);
  fs::permissions(kernels, write, fs::perm_options::remove);
  LogCapture log(warn);
  testing::runSubjectToFilePermissions([&] {
    ASSERT_FALSE(testing::canCreateFileIn(kernels))
        << "the directory is writable: the test would prove nothing";
    expectCacheHit(); // The winner stored before is still used.
  });
  EXPECT_TRUE(log.messages().empty()) << log.str();

  // Without that winner and its lock file, every tune() tunes.
  fs::path lockFile = recordPath();
  lockFile += ".lock";
  fs::remove(recordPath());
  fs::remove(lockFile);
  testing::runSubjectToFilePermissions([&] {
    expectRetunes();
    expectRetunes();
  });
  EXPECT_EQ(log.count(warn, "cannot lock " + lockFile.string()), 1)
      << log.str();
  EXPECT_EQ(log.count(warn, "cannot write the cache record " +
                                recordPath().string()),
            1)
      << log.str();
  EXPECT_EQ(log.messages().size(), 2u) << log.str();
  EXPECT_TRUE(cache.records().empty());
  fs::permissions(kernels, write, fs::perm_options::add);
  fs::permissions(cache.path(), write, fs::perm_options::add);
}

/// The directory does not exist yet, disappears between two runs, or
/// cannot be created.
TEST_F(CacheFaultTest, MissingDirectoryIsCreated) {
  fs::path nested = cache.path() / "not" / "there" / "yet";
  ScopedEnvironment cacheDir("TTILE_CACHE_DIR", nested.string());
  LogCapture log(warn);
  expectRetunes();
  expectCacheHit();
  fs::remove_all(nested); // `ttile-cache clear`, or an administrator.
  expectRetunes();
  expectCacheHit();
  EXPECT_TRUE(log.messages().empty()) << log.str();
}

TEST_F(CacheFaultTest, DirectoryThatCannotBeCreated) {
  testing::writeWholeFile(cache.path() / "file", "in the way");
  fs::path underAFile = cache.path() / "file" / "ttile";
  ScopedEnvironment cacheDir("TTILE_CACHE_DIR", underAFile.string());
  LogCapture log(warn);
  expectRetunes();
  expectRetunes();
  EXPECT_EQ(log.count(warn, "cannot create the cache directory " +
                                underAFile.string()),
            1)
      << log.str();
}

/// A write that fails midway, as on a full disk: tuning goes on, the
/// failure is logged once, and no partial file stays behind.
TEST_F(CacheFaultTest, FullDisk) {
  LogCapture log(warn);
  {
    // Far less than a record: its first write is cut short, the next one
    // fails (EFBIG).
    testing::FileSizeLimit full(256);
    expectRetunes();
    expectRetunes();
  }
  EXPECT_EQ(log.count(warn, "cannot write the cache record"), 1) << log.str();
  EXPECT_TRUE(cache.records().empty());
  for (const fs::directory_entry &entry :
       fs::recursive_directory_iterator(cache.path()))
    if (entry.is_regular_file())
      EXPECT_EQ(entry.path().extension(), ".lock")
          << "a partial write left " << entry.path();
  expectRetunes(); // Space again: stored this time.
  expectCacheHit();
}

} // namespace
} // namespace ttile
