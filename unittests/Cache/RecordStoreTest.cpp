//===- unittests/Cache/RecordStoreTest.cpp - Records, store, locks --------===//

#include "Cache/RecordStore.h"

#include "CacheTestUtil.h"
#include "LogCapture.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <random>
#include <thread>

namespace ttile::cache {
namespace {

namespace fs = std::filesystem;
using testing::FileSizeLimit;
using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

const std::string kKind = "test";
const std::string kKey = "op=matmul;I=4;J=16;K=8;";
/// Binary, with a NUL and a newline, as object code is.
const std::string kPayload = std::string("object\0code\n\xff", 13);

std::vector<fs::path> filesUnder(const fs::path &directory) {
  std::vector<fs::path> files;
  for (const fs::directory_entry &entry :
       fs::recursive_directory_iterator(directory))
    if (entry.is_regular_file())
      files.push_back(entry.path());
  return files;
}

//===--- Encoding ---------------------------------------------------------===//

TEST(RecordTest, RoundTrips) {
  std::string bytes = encodeRecord(kKind, kKey, kPayload);
  std::string whyNot;
  std::optional<std::string> payload =
      decodeRecord(bytes, kKind, kKey, &whyNot);
  ASSERT_TRUE(payload) << whyNot;
  EXPECT_EQ(*payload, kPayload);

  EXPECT_EQ(decodeRecord(encodeRecord("", "", ""), "", ""), "");
}

TEST(RecordTest, RejectsEveryTruncation) {
  std::string bytes = encodeRecord(kKind, kKey, kPayload);
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_FALSE(decodeRecord(bytes.substr(0, length), kKind, kKey))
        << "prefix of " << length << " bytes";
}

TEST(RecordTest, RejectsEveryByteFlip) {
  std::string bytes = encodeRecord(kKind, kKey, kPayload);
  for (size_t position = 0; position < bytes.size(); ++position)
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[position] = static_cast<char>(damaged[position] ^ flip);
      EXPECT_FALSE(decodeRecord(damaged, kKind, kKey))
          << "byte " << position << " ^ " << int(flip);
    }
}

TEST(RecordTest, RejectsTrailingBytes) {
  std::string whyNot;
  EXPECT_FALSE(decodeRecord(encodeRecord(kKind, kKey, kPayload) + "x", kKind,
                            kKey, &whyNot));
  EXPECT_EQ(whyNot, "1 byte after the checksum");
}

TEST(RecordTest, RejectsAnotherKindOrKey) {
  std::string bytes = encodeRecord(kKind, kKey, kPayload);
  std::string whyNot;
  EXPECT_FALSE(decodeRecord(bytes, "kernel", kKey, &whyNot));
  EXPECT_EQ(whyNot, "a record of kind 'test', not 'kernel'");
  EXPECT_FALSE(decodeRecord(bytes, kKind, kKey + "cpu=znver4;", &whyNot));
  EXPECT_EQ(whyNot, "a record for another key");
}

TEST(RecordTest, RejectsAnotherMagicOrVersion) {
  std::string bytes = encodeRecord(kKind, kKey, kPayload);
  std::string whyNot;
  std::string otherMagic = bytes;
  otherMagic[0] = 'X';
  EXPECT_FALSE(decodeRecord(otherMagic, kKind, kKey, &whyNot));
  EXPECT_EQ(whyNot, "not a ttile record");

  // A well-formed record of a later format: the version is read first.
  std::string laterFormat = bytes;
  laterFormat[8] = 2;
  EXPECT_FALSE(decodeRecord(laterFormat, kKind, kKey, &whyNot));
  EXPECT_EQ(whyNot, "record format 2, this ttile reads format 1");
}

TEST(RecordTest, RejectsRandomBytes) {
  std::mt19937_64 random(42);
  std::string header = encodeRecord(kKind, kKey, kPayload).substr(0, 12);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(random() % 256, '\0');
    for (char &byte : bytes)
      byte = static_cast<char>(random());
    EXPECT_FALSE(decodeRecord(bytes, kKind, kKey));
    // Past the magic and version, the lengths are random: some huge.
    EXPECT_FALSE(decodeRecord(header + bytes, kKind, kKey));
  }
}

//===--- The store --------------------------------------------------------===//

TEST(RecordStoreTest, WritesAndReads) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  EXPECT_FALSE(store.read(kKind, kKey));
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  EXPECT_EQ(RecordStore(directory.path()).read(kKind, kKey), kPayload);

  ASSERT_TRUE(store.write(kKind, kKey, "replaced"));
  EXPECT_EQ(store.read(kKind, kKey), "replaced");
  EXPECT_FALSE(store.read(kKind, kKey + "N=2;"));
  EXPECT_EQ(filesUnder(directory.path()).size(), 1u) << "no temporaries left";

  EXPECT_TRUE(store.remove(kKind, kKey));
  EXPECT_FALSE(store.read(kKind, kKey));
  EXPECT_FALSE(store.remove(kKind, kKey));
}

TEST(RecordStoreTest, NamesFilesByKindAndHash) {
  RecordStore store("/cache");
  fs::path path = store.pathFor(kKind, kKey);
  EXPECT_EQ(path.parent_path(), fs::path("/cache") / kKind);
  EXPECT_EQ(path.extension(), ".ttr");
  EXPECT_EQ(path.stem().string().size(), 16u);
  EXPECT_NE(store.pathFor(kKind, kKey + "N=2;"), path);
}

TEST(RecordStoreTest, RemovesCorruptRecords) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  fs::path path = store.pathFor(kKind, kKey);
  std::string bytes = testing::readWholeFile(path);
  bytes[bytes.size() / 2] ^= 0x10;
  testing::writeWholeFile(path, bytes);

  EXPECT_FALSE(store.read(kKind, kKey));
  EXPECT_FALSE(fs::exists(path));
  ASSERT_TRUE(store.write(kKind, kKey, kPayload)) << "rebuilt";
  EXPECT_EQ(store.read(kKind, kKey), kPayload);
}

TEST(RecordStoreTest, RemovesTruncatedRecords) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  fs::path path = store.pathFor(kKind, kKey);
  fs::resize_file(path, fs::file_size(path) - 1);
  EXPECT_FALSE(store.read(kKind, kKey));
  EXPECT_FALSE(fs::exists(path));
}

/// What a shared cache directory may hold at a record's path besides a
/// record (issue 25): each is refused at once, as a corrupt record is, and
/// removed; a FIFO would block open() and read() forever, a link to
/// /dev/zero read without end, an 8 GiB sparse file fill the memory.
TEST(RecordStoreTest, RefusesSpecialAndOversizedFilesAtOnce) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  const fs::path path = store.pathFor(kKind, kKey);
  fs::create_directories(path.parent_path());
  auto refusedQuickly = [&] {
    auto start = std::chrono::steady_clock::now();
    std::future<std::optional<std::string>> read = std::async(
        std::launch::async, [&] { return store.read(kKind, kKey); });
    if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
      std::abort(); // A hang: nothing else would end the test.
    EXPECT_FALSE(read.get());
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              std::chrono::seconds(2));
    EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << "removed";
  };

  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(readRecordInfo(path).problem, "unreadable: not a regular file");
  refusedQuickly();

  fs::create_symlink("/dev/zero", path);
  EXPECT_EQ(readRecordInfo(path).problem,
            "unreadable: a symbolic link, not a record");
  refusedQuickly();

  { std::ofstream sparse(path); }
  fs::resize_file(path, uint64_t(8) << 30);
  EXPECT_NE(readRecordInfo(path).problem.find("larger than any record"),
            std::string::npos);
  refusedQuickly();

  // A record that size is never written either.
  EXPECT_FALSE(store.write(kKind, kKey, std::string(kMaxRecordBytes, 'x')));
  ASSERT_TRUE(store.write(kKind, kKey, kPayload)) << "rebuilt";
  EXPECT_EQ(store.read(kKind, kKey), kPayload);
}

TEST(RecordStoreTest, RemovesARecordOfAnotherKeyAtItsPath) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  fs::path path = store.pathFor(kKind, kKey);
  testing::writeWholeFile(path, encodeRecord(kKind, "cpu=other;", kPayload));
  EXPECT_FALSE(store.read(kKind, kKey));
  EXPECT_FALSE(fs::exists(path));
}

TEST(RecordStoreTest, CreatesMissingDirectories) {
  TemporaryDirectory directory;
  RecordStore store(directory.path() / "not" / "there" / "yet");
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  EXPECT_EQ(store.read(kKind, kKey), kPayload);
}

// A regular file where a directory should be: not even root gets past it.
TEST(RecordStoreTest, WriteFailsUnderARegularFile) {
  RecordStore underDevNull("/dev/null/ttile");
  EXPECT_FALSE(underDevNull.write(kKind, kKey, kPayload));
  EXPECT_FALSE(underDevNull.read(kKind, kKey));

  TemporaryDirectory directory;
  RecordStore store(directory.path());
  testing::writeWholeFile(directory.path() / kKind, "a file, not a directory");
  EXPECT_FALSE(store.write(kKind, kKey, kPayload));
  EXPECT_EQ(filesUnder(directory.path()).size(), 1u);
}

// A directory without write permission, on a thread that root's override
// does not cover (CacheTestUtil.h).
TEST(RecordStoreTest, WriteAndLockFailInAReadOnlyDirectory) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  fs::path kindDirectory = store.pathFor(kKind, kKey).parent_path();
  fs::permissions(kindDirectory, fs::perms::all & ~fs::perms::owner_write &
                                     ~fs::perms::group_write &
                                     ~fs::perms::others_write);
  testing::runSubjectToFilePermissions([&] {
    ASSERT_FALSE(testing::canCreateFileIn(kindDirectory));
    EXPECT_EQ(store.read(kKind, kKey), kPayload) << "reads still work";
    EXPECT_FALSE(store.write(kKind, kKey, "replaced"));
    EXPECT_FALSE(KeyLock(store, kKind, kKey + "N=2;").held());
  });
  EXPECT_EQ(store.read(kKind, kKey), kPayload) << "the old record survives";
  EXPECT_EQ(filesUnder(directory.path()).size(), 1u) << "no temporary left";
  fs::permissions(kindDirectory, fs::perms::owner_all, fs::perm_options::add);
}

TEST(RecordStoreTest, WriteFailsOverADirectory) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  fs::path path = store.pathFor(kKind, kKey);
  testing::writeWholeFile(path / "occupied", "");
  EXPECT_FALSE(store.write(kKind, kKey, kPayload));
  EXPECT_EQ(filesUnder(directory.path()).size(), 1u) << "temporary removed";
}

TEST(RecordStoreTest, WriteFailsOnAFullDisk) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  bool written;
  {
    FileSizeLimit limit(4096);
    written = store.write(kKind, kKey, std::string(1 << 16, 'x'));
  }
  EXPECT_FALSE(written);
  EXPECT_EQ(store.read(kKind, kKey), kPayload) << "the old record survives";
  EXPECT_EQ(filesUnder(directory.path()).size(), 1u) << "temporary removed";
}

TEST(RecordStoreTest, ListsAndClears) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write("kernel", kKey, kPayload));
  ASSERT_TRUE(store.write("microkernels", "avx512", "{}"));
  fs::path corrupt = store.pathFor("kernel", "corrupt");
  testing::writeWholeFile(corrupt, "TTILEREC");
  fs::path temporary = store.pathFor("kernel", kKey);
  temporary += ".tmp.1.2";
  testing::writeWholeFile(temporary, "");
  {
    KeyLock leavesItsFile(store, "kernel", kKey);
  }

  std::vector<RecordInfo> records = store.list();
  ASSERT_EQ(records.size(), 3u);
  int valid = 0;
  for (const RecordInfo &record : records) {
    if (record.path == corrupt) {
      EXPECT_FALSE(record.valid);
      EXPECT_EQ(record.kind, "kernel");
      EXPECT_EQ(record.problem, "truncated");
      continue;
    }
    ++valid;
    EXPECT_TRUE(record.valid) << record.problem;
    EXPECT_EQ(record.path, store.pathFor(record.kind, record.key));
  }
  EXPECT_EQ(valid, 2);

  EXPECT_EQ(store.clear(), 3);
  EXPECT_TRUE(filesUnder(directory.path()).empty());
  EXPECT_TRUE(store.list().empty());
  EXPECT_TRUE(RecordStore(directory.path() / "missing").list().empty());
  EXPECT_EQ(RecordStore(directory.path() / "missing").clear(), 0);
}

TEST(RecordStoreTest, InfoFlagsMisplacedRecords) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  ASSERT_TRUE(store.write(kKind, kKey, kPayload));
  std::string payload;
  RecordInfo info = readRecordInfo(store.pathFor(kKind, kKey), &payload);
  EXPECT_TRUE(info.valid) << info.problem;
  EXPECT_EQ(info.key, kKey);
  EXPECT_EQ(info.payloadBytes, kPayload.size());
  EXPECT_EQ(payload, kPayload);

  fs::path elsewhere = store.pathFor(kKind, "another key");
  fs::copy_file(store.pathFor(kKind, kKey), elsewhere);
  info = readRecordInfo(elsewhere);
  EXPECT_FALSE(info.valid);
  EXPECT_EQ(info.problem, "not at the path of its kind and key");
}

//===--- The directory ----------------------------------------------------===//

class DefaultDirectoryTest : public ::testing::Test {
protected:
  TemporaryDirectory directory;
  ScopedEnvironment cache{"TTILE_CACHE", std::nullopt};
  ScopedEnvironment cacheDirectory{"TTILE_CACHE_DIR", std::nullopt};
  ScopedEnvironment xdgCacheHome{"XDG_CACHE_HOME", std::nullopt};
  ScopedEnvironment home{"HOME", std::nullopt};
};

TEST_F(DefaultDirectoryTest, FollowsTheEnvironment) {
  EXPECT_FALSE(defaultCacheDirectory()) << "no variable set";

  ScopedEnvironment homeSet("HOME", directory.path() / "home");
  EXPECT_EQ(defaultCacheDirectory(),
            directory.path() / "home" / ".cache" / "ttile");
  {
    ScopedEnvironment relative("XDG_CACHE_HOME", "relative");
    EXPECT_EQ(defaultCacheDirectory(),
              directory.path() / "home" / ".cache" / "ttile");
  }
  ScopedEnvironment xdgSet("XDG_CACHE_HOME", directory.path() / "xdg");
  EXPECT_EQ(defaultCacheDirectory(), directory.path() / "xdg" / "ttile");
  ScopedEnvironment explicitSet("TTILE_CACHE_DIR", directory.path() / "a" / "b");
  EXPECT_EQ(defaultCacheDirectory(), directory.path() / "a" / "b");
  EXPECT_TRUE(fs::is_directory(directory.path() / "a" / "b"));

  ScopedEnvironment off("TTILE_CACHE", "off");
  EXPECT_FALSE(defaultCacheDirectory());
}

TEST_F(DefaultDirectoryTest, IsNoneWhenItCannotBeCreated) {
  ScopedEnvironment explicitSet("TTILE_CACHE_DIR", "/dev/null/ttile");
  EXPECT_FALSE(defaultCacheDirectory());
}

//===--- Locks ------------------------------------------------------------===//

TEST(KeyLockTest, ExcludesAnotherThread) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  std::atomic<bool> firstReleased{false};
  std::future<bool> second;
  {
    KeyLock first(store, kKind, kKey);
    ASSERT_TRUE(first.held());
    second = std::async(std::launch::async, [&] {
      KeyLock lock(store, kKind, kKey);
      return lock.held() && firstReleased.load();
    });
    // Gives the second thread time to block on the lock; the outcome does
    // not depend on it when the lock works.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    firstReleased = true;
  }
  EXPECT_TRUE(second.get()) << "the second lock was taken before the first "
                               "one was released";
}

// A holder that never lets go (a stopped process) delays a tuner by the
// wait limit at most (#25); the lock then holds nothing, and says so.
TEST(KeyLockTest, GivesUpAfterItsWaitLimit) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  KeyLock holder(store, kKind, kKey);
  ASSERT_TRUE(holder.held());
  testing::LogCapture capture;
  auto start = std::chrono::steady_clock::now();
  KeyLock waiter(store, kKind, kKey, std::chrono::milliseconds(200));
  double waited = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  EXPECT_FALSE(waiter.held());
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 5);
  EXPECT_EQ(capture.count(spdlog::level::warn, "going on without it"), 1)
      << capture.str();
  EXPECT_FALSE(KeyLock(store, kKind, kKey, std::chrono::seconds(0)).held());
}

TEST(KeyLockTest, AWaitLimitStillTakesAFreedLock) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  std::future<bool> second;
  {
    KeyLock first(store, kKind, kKey);
    second = std::async(std::launch::async, [&] {
      return KeyLock(store, kKind, kKey, std::chrono::seconds(30)).held();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(second.get());
  EXPECT_TRUE(KeyLock(store, kKind, kKey, std::chrono::seconds(0)).held());
}

TEST(KeyLockTest, KeysAreIndependent) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  KeyLock first(store, kKind, kKey);
  KeyLock second(store, kKind, kKey + "N=2;");
  EXPECT_TRUE(first.held());
  EXPECT_TRUE(second.held());
}

TEST(KeyLockTest, MovesAndHoldsNothingWithoutADirectory) {
  TemporaryDirectory directory;
  RecordStore store(directory.path());
  KeyLock original(store, kKind, kKey);
  KeyLock moved(std::move(original));
  EXPECT_FALSE(original.held());
  EXPECT_TRUE(moved.held());

  EXPECT_FALSE(KeyLock().held());
  EXPECT_FALSE(KeyLock(RecordStore("/dev/null/ttile"), kKind, kKey).held());
}

} // namespace
} // namespace ttile::cache
