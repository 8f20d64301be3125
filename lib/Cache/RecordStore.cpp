//===- Cache/RecordStore.cpp - Checksummed files in the cache dir ---------===//
//
// A record file is, all integers little-endian:
//
//   "TTILEREC"                       magic, 8 bytes
//   u32 format version               kFormatVersion
//   u32 length, bytes                the kind
//   u32 length, bytes                the key
//   u64 length, bytes                the payload
//   u64 checksum                     xxh3_64 of every byte before it
//
// Nothing is ever trusted from a file before its length has been checked
// against what remains, so a damaged or hostile file is rejected, never
// read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "Cache/RecordStore.h"

#include "Cache/ReportOnce.h"
#include "Support/Environment.h"
#include "Support/Logging.h"

#include <llvm/Support/xxhash.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

namespace ttile::cache {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kMagic = "TTILEREC";
constexpr uint32_t kFormatVersion = 1;
constexpr std::string_view kRecordExtension = ".ttr";
constexpr std::string_view kLockExtension = ".lock";
/// Temporaries are "<record file>.tmp.<pid>.<random>".
constexpr std::string_view kTemporaryInfix = ".ttr.tmp.";

uint64_t checksum(std::string_view bytes) {
  return llvm::xxh3_64bits(llvm::StringRef(bytes.data(), bytes.size()));
}

std::error_code lastError() { return {errno, std::generic_category()}; }

/// "<16 hex digits of the key's hash>.ttr": any key gives a safe name.
std::string recordFileName(std::string_view key) {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx%s",
                static_cast<unsigned long long>(checksum(key)),
                kRecordExtension.data());
  return name;
}

template <typename T> void appendLittleEndian(std::string &out, T value) {
  for (size_t byte = 0; byte < sizeof(T); ++byte)
    out.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
}

template <typename Length>
void appendWithLength(std::string &out, std::string_view bytes) {
  appendLittleEndian<Length>(out, static_cast<Length>(bytes.size()));
  out.append(bytes);
}

/// Takes fields off the front of a record. A read past the end yields zero
/// or nothing and marks the reader failed, so that a parser can read every
/// field and check once.
class Reader {
public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}

  template <typename T> T integer() {
    std::string_view bytes = take(sizeof(T));
    T value = 0;
    for (size_t byte = 0; byte < bytes.size(); ++byte)
      value |= static_cast<T>(static_cast<unsigned char>(bytes[byte]))
               << (8 * byte);
    return value;
  }

  std::string_view take(uint64_t count) {
    if (failed_ || count > rest_.size()) {
      failed_ = true;
      return {};
    }
    std::string_view taken = rest_.substr(0, count);
    rest_.remove_prefix(count);
    return taken;
  }

  bool failed() const { return failed_; }
  size_t remaining() const { return rest_.size(); }

private:
  std::string_view rest_;
  bool failed_ = false;
};

struct ParsedRecord {
  std::string_view kind, key, payload;
};

/// Checks everything about a record but whether it is the one wanted.
std::optional<ParsedRecord> parseRecord(std::string_view bytes,
                                        std::string &whyNot) {
  Reader reader(bytes);
  if (reader.take(kMagic.size()) != kMagic) {
    whyNot = "not a ttile record";
    return std::nullopt;
  }
  uint32_t version = reader.integer<uint32_t>();
  if (reader.failed()) {
    whyNot = "truncated";
    return std::nullopt;
  }
  // Checked before the layout that depends on it.
  if (version != kFormatVersion) {
    whyNot = "record format " + std::to_string(version) +
             ", this ttile reads format " + std::to_string(kFormatVersion);
    return std::nullopt;
  }
  ParsedRecord record;
  record.kind = reader.take(reader.integer<uint32_t>());
  record.key = reader.take(reader.integer<uint32_t>());
  record.payload = reader.take(reader.integer<uint64_t>());
  uint64_t storedChecksum = reader.integer<uint64_t>();
  if (reader.failed()) {
    whyNot = "truncated";
    return std::nullopt;
  }
  if (size_t extra = reader.remaining()) {
    whyNot = std::to_string(extra) + (extra == 1 ? " byte" : " bytes") +
             " after the checksum";
    return std::nullopt;
  }
  if (checksum(bytes.substr(0, bytes.size() - sizeof(uint64_t))) !=
      storedChecksum) {
    whyNot = "checksum mismatch";
    return std::nullopt;
  }
  return record;
}

/// A file descriptor closed on destruction, unless closed (and checked)
/// before.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Some file systems (NFS) report write errors only here.
  std::error_code close() {
    int result = ::close(std::exchange(fd_, -1));
    return result == 0 ? std::error_code() : lastError();
  }

private:
  int fd_;
};

/// A record file's bytes, or none with why: `error` from the system (the
/// file is absent, or unreadable), or `problem` alone for a file no record
/// can be.
struct FileContents {
  std::optional<std::string> bytes;
  std::error_code error;
  std::string problem;
};

/// The whole file at `path` when it is a regular file of at most
/// kMaxRecordBytes. A cache directory is shared between processes, and
/// possibly users: a FIFO there would block open() and read() forever, a
/// link to /dev/zero read without end, a sparse file of gigabytes exhaust
/// memory. So the file is opened without blocking and without following
/// a final symbolic link (records are never links: they are renamed into
/// place), and checked before it is read.
FileContents readFile(const fs::path &path) {
  FileContents contents;
  FileDescriptor file(
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (!file.valid()) {
    contents.error = lastError();
    contents.problem = errno == ELOOP ? "a symbolic link, not a record"
                                      : contents.error.message();
    return contents;
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    contents.error = lastError();
    contents.problem = contents.error.message();
    return contents;
  }
  if (!S_ISREG(status.st_mode)) {
    contents.problem = "not a regular file";
    return contents;
  }
  if (static_cast<uint64_t>(status.st_size) > kMaxRecordBytes) {
    contents.problem = "larger than any record (" +
                       std::to_string(status.st_size) + " bytes, at most " +
                       std::to_string(kMaxRecordBytes) + ")";
    return contents;
  }
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    ssize_t count = ::read(file.get(), buffer, sizeof(buffer));
    if (count > 0) {
      // A file that grows while it is read is no record either.
      if (bytes.size() + static_cast<size_t>(count) > kMaxRecordBytes) {
        contents.problem = "grew past the size of any record while read";
        return contents;
      }
      bytes.append(buffer, static_cast<size_t>(count));
    } else if (count == 0) {
      contents.bytes = std::move(bytes);
      return contents;
    } else if (errno != EINTR) {
      contents.error = lastError();
      contents.problem = contents.error.message();
      return contents;
    }
  }
}

/// Loops over short writes, as a nearly full disk produces them.
std::error_code writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t count = ::write(fd, bytes.data(), bytes.size());
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return lastError();
    bytes.remove_prefix(static_cast<size_t>(count));
  }
  return {};
}

/// A name no other writer, thread or process, picks at the same time.
std::string temporarySuffix() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char text[64];
  std::snprintf(text, sizeof(text), ".tmp.%ld.%016llx",
                static_cast<long>(::getpid()),
                static_cast<unsigned long long>(random()));
  return text;
}

/// Writes `bytes` to a temporary file beside `path` and renames it over
/// `path`, so that readers see the old record or the new one, never a part.
std::error_code writeAtomically(const fs::path &path, std::string_view bytes) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error)
    return error;
  fs::path temporary = path;
  temporary += temporarySuffix();
  FileDescriptor file(::open(temporary.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!file.valid())
    return lastError();
  error = writeAll(file.get(), bytes);
  // Without fsync, a crash soon after the rename can leave an empty file
  // under the final name: detected, but the record is lost.
  if (!error && ::fsync(file.get()) != 0)
    error = lastError();
  if (!error)
    error = file.close();
  if (!error && ::rename(temporary.c_str(), path.c_str()) != 0)
    error = lastError();
  if (error)
    ::unlink(temporary.c_str());
  return error;
}

/// Calls `visit` on every entry of `directory`. A directory that cannot be
/// read has no entries: listing and clearing never throw.
template <typename Visit>
void forEachEntry(const fs::path &directory, Visit visit) {
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end;
       !error && entry != end; entry.increment(error))
    visit(entry->path());
}

} // namespace

std::optional<fs::path> defaultCacheDirectory() {
  if (environmentSwitch("TTILE_CACHE", "the cache stays on") == false) {
    if (reportOnce("cache off"))
      log().info("the cache is off (TTILE_CACHE)");
    return std::nullopt;
  }
  fs::path directory;
  std::optional<std::string> xdgCacheHome = environmentValue("XDG_CACHE_HOME");
  if (std::optional<std::string> explicitDirectory =
          environmentValue("TTILE_CACHE_DIR"))
    directory = *explicitDirectory;
  else if (xdgCacheHome && fs::path(*xdgCacheHome).is_absolute())
    // The XDG specification tells to ignore relative paths.
    directory = fs::path(*xdgCacheHome) / "ttile";
  else if (std::optional<std::string> home = environmentValue("HOME"))
    directory = fs::path(*home) / ".cache" / "ttile";
  else {
    if (reportOnce("no cache directory"))
      log().warn("no cache directory: none of TTILE_CACHE_DIR, "
                 "XDG_CACHE_HOME and HOME is set; the cache is off");
    return std::nullopt;
  }
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    if (reportOnce("create " + directory.string()))
      log().warn("cannot create the cache directory {}: {}; the cache is off",
                 directory.string(), error.message());
    return std::nullopt;
  }
  return directory;
}

std::string encodeRecord(std::string_view kind, std::string_view key,
                         std::string_view payload) {
  std::string bytes(kMagic);
  appendLittleEndian<uint32_t>(bytes, kFormatVersion);
  appendWithLength<uint32_t>(bytes, kind);
  appendWithLength<uint32_t>(bytes, key);
  appendWithLength<uint64_t>(bytes, payload);
  appendLittleEndian<uint64_t>(bytes, checksum(bytes));
  return bytes;
}

std::optional<std::string> decodeRecord(std::string_view bytes,
                                        std::string_view kind,
                                        std::string_view key,
                                        std::string *whyNot) {
  std::string problem;
  std::optional<ParsedRecord> record = parseRecord(bytes, problem);
  if (record && record->kind != kind)
    problem = "a record of kind '" + std::string(record->kind) +
              "', not '" + std::string(kind) + "'";
  else if (record && record->key != key)
    // Another ttile, LLVM or CPU, or a collision of the hashes of two keys.
    problem = "a record for another key";
  else if (record)
    return std::string(record->payload);
  if (whyNot)
    *whyNot = std::move(problem);
  return std::nullopt;
}

RecordInfo readRecordInfo(const fs::path &file, std::string *payload) {
  RecordInfo info;
  info.path = file;
  info.kind = file.parent_path().filename().string();
  FileContents contents = readFile(file);
  if (!contents.bytes) {
    info.problem = "unreadable: " + contents.problem;
    return info;
  }
  std::optional<ParsedRecord> record =
      parseRecord(*contents.bytes, info.problem);
  if (!record)
    return info;
  info.kind = record->kind;
  info.key = record->key;
  info.payloadBytes = record->payload.size();
  std::error_code error;
  fs::path absolute = fs::absolute(file, error);
  if (absolute.parent_path().filename() != info.kind ||
      absolute.filename() != recordFileName(info.key)) {
    info.problem = "not at the path of its kind and key";
    return info;
  }
  info.valid = true;
  if (payload)
    *payload = record->payload;
  return info;
}

RecordStore::RecordStore(fs::path directory)
    : directory_(std::move(directory)) {}

fs::path RecordStore::pathFor(std::string_view kind,
                              std::string_view key) const {
  return directory_ / kind / recordFileName(key);
}

std::optional<std::string> RecordStore::read(std::string_view kind,
                                             std::string_view key) const {
  fs::path path = pathFor(kind, key);
  FileContents contents = readFile(path);
  // Absent, or under a directory that is not (then writes say so).
  if (!contents.bytes &&
      (contents.error == std::errc::no_such_file_or_directory ||
       contents.error == std::errc::not_a_directory))
    return std::nullopt;
  std::string problem = contents.problem;
  if (contents.bytes)
    if (std::optional<std::string> payload =
            decodeRecord(*contents.bytes, kind, key, &problem))
      return payload;
  if (reportOnce("read " + path.string()))
    log().warn("ignoring cache record {}: {}; it will be rebuilt",
               path.string(), problem);
  // The caller rebuilds the record and writes it anew. Should the file not
  // go, that write replaces it.
  std::error_code error;
  fs::remove(path, error);
  return std::nullopt;
}

bool RecordStore::write(std::string_view kind, std::string_view key,
                        std::string_view payload) const {
  fs::path path = pathFor(kind, key);
  std::string bytes = encodeRecord(kind, key, payload);
  // What no reader would accept is not written.
  std::error_code error =
      bytes.size() > kMaxRecordBytes
          ? std::make_error_code(std::errc::file_too_large)
          : writeAtomically(path, bytes);
  if (!error)
    return true;
  if (reportOnce("write " + path.string()))
    log().warn("cannot write the cache record {}: {}", path.string(),
               error.message());
  return false;
}

bool RecordStore::remove(std::string_view kind, std::string_view key) const {
  std::error_code error;
  return fs::remove(pathFor(kind, key), error);
}

std::vector<RecordInfo> RecordStore::list() const {
  std::vector<RecordInfo> records;
  forEachEntry(directory_, [&](const fs::path &kindDirectory) {
    forEachEntry(kindDirectory, [&](const fs::path &file) {
      if (file.extension() == kRecordExtension)
        records.push_back(readRecordInfo(file));
    });
  });
  std::sort(records.begin(), records.end(),
            [](const RecordInfo &a, const RecordInfo &b) {
              return a.path < b.path;
            });
  return records;
}

int RecordStore::clear() const {
  int removed = 0;
  forEachEntry(directory_, [&](const fs::path &kindDirectory) {
    forEachEntry(kindDirectory, [&](const fs::path &file) {
      bool isRecord = file.extension() == kRecordExtension;
      if (!isRecord && file.extension() != kLockExtension &&
          file.filename().string().find(kTemporaryInfix) == std::string::npos)
        return;
      std::error_code error;
      if (fs::remove(file, error) && isRecord)
        ++removed;
    });
  });
  return removed;
}

namespace {

/// Takes the flock of `fd`, waiting for `waitLimit` at most. True when
/// taken; false, with `error` clear, when the limit passed first.
bool lockWithin(int fd, std::chrono::duration<double> waitLimit,
                std::error_code &error) {
  using Clock = std::chrono::steady_clock;
  if (waitLimit == std::chrono::duration<double>::max()) {
    while (::flock(fd, LOCK_EX) != 0)
      if (errno != EINTR) {
        error = lastError();
        return false;
      }
    return true;
  }
  // flock cannot time out: poll, sleeping a little longer each time (the
  // holder is tuning for seconds; a millisecond late costs nothing).
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(waitLimit);
  for (auto pause = std::chrono::milliseconds(1);;
       pause = std::min(2 * pause, std::chrono::milliseconds(50))) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
      return true;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      error = lastError();
      return false;
    }
    Clock::time_point now = Clock::now();
    if (now >= deadline)
      return false;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(pause, deadline - now));
  }
}

/// Opens (creating it and its directory) the lock file of `kind`/`key`;
/// -1 with `error` set when it cannot.
int openLockFile(const fs::path &path, std::error_code &error) {
  fs::create_directories(path.parent_path(), error);
  if (error)
    return -1;
  int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    error = lastError();
  return fd;
}

fs::path lockPath(const RecordStore &store, std::string_view kind,
                  std::string_view key) {
  fs::path path = store.pathFor(kind, key);
  path += kLockExtension;
  return path;
}

} // namespace

KeyLock::KeyLock(const RecordStore &store, std::string_view kind,
                 std::string_view key, std::chrono::duration<double> waitLimit) {
  fs::path path = lockPath(store, kind, key);
  std::error_code error;
  int fd = openLockFile(path, error);
  if (!error && !lockWithin(fd, waitLimit, error) && !error) {
    ::close(fd);
    log().warn("waited {:.1f} s for {}, which another tuner of the same "
               "problem holds; going on without it (the lock wait limit)",
               waitLimit.count(), path.string());
    return;
  }
  if (error) {
    if (fd >= 0)
      ::close(fd);
    if (reportOnce("lock " + path.string()))
      log().warn("cannot lock {}: {}; going on without the lock",
                 path.string(), error.message());
    return;
  }
  fd_ = fd;
}

KeyLock KeyLock::ifFree(const RecordStore &store, std::string_view kind,
                        std::string_view key) {
  KeyLock lock;
  std::error_code error;
  int fd = openLockFile(lockPath(store, kind, key), error);
  if (fd < 0)
    return lock;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
    lock.fd_ = fd;
  else
    ::close(fd);
  return lock;
}

KeyLock::KeyLock(KeyLock &&other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

KeyLock::~KeyLock() {
  if (fd_ < 0)
    return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

} // namespace ttile::cache
