//===- Cache/RecordStore.h - Checksummed files in the cache dir -*- C++ -*-===//
//
// Everything ttile keeps on disk (the microkernel table of the offline
// stage, tuned kernels with their object code) is a *record*: a file that
// names its kind and its full key, and ends with a checksum of all of it.
// A record is trusted only when the magic, the format version, the kind,
// the key and the checksum all match; anything else (truncated, corrupt,
// written by another ttile, CPU or LLVM) is reported once in the log,
// removed, and treated as absent, so that the caller rebuilds it.
//
// Writes are atomic (a temporary file in the same directory, then rename),
// so a reader never sees half a record, and several processes can share one
// directory. A failed write (read-only or full disk) is logged and ignored:
// the cache only ever saves time.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CACHE_RECORDSTORE_H
#define TTILE_CACHE_RECORDSTORE_H

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::cache {

/// The cache directory: $TTILE_CACHE_DIR, else $XDG_CACHE_HOME/ttile, else
/// $HOME/.cache/ttile. None when TTILE_CACHE=off, or when the directory
/// cannot be created (logged once).
std::optional<std::filesystem::path> defaultCacheDirectory();

/// The largest record file read or written. A kernel's object code is
/// tens of kilobytes and a microkernel table under a megabyte; a larger
/// file at a record's path is damaged or hostile, and is refused before a
/// byte of it is read, like any corrupt record.
inline constexpr uint64_t kMaxRecordBytes = uint64_t(64) << 20;

/// Serializes a record; `kind` is e.g. "microkernels" or "kernel".
std::string encodeRecord(std::string_view kind, std::string_view key,
                         std::string_view payload);

/// The payload of a serialized record whose kind and key are the ones
/// expected; otherwise none, with the reason in `whyNot` if given.
std::optional<std::string> decodeRecord(std::string_view bytes,
                                        std::string_view kind,
                                        std::string_view key,
                                        std::string *whyNot = nullptr);

/// Summary of a record file, for listing tools.
struct RecordInfo {
  std::filesystem::path path;
  std::string kind, key;
  uint64_t payloadBytes = 0;
  bool valid = false;     ///< Checksum and format verified.
  std::string problem;    ///< Why not valid.
};

/// Reads and checks one record file without removing it, whatever its
/// state; the payload goes to `payload` when given and the record is valid.
/// A valid record must also sit at the path of its kind and key.
RecordInfo readRecordInfo(const std::filesystem::path &file,
                          std::string *payload = nullptr);

class RecordStore {
public:
  explicit RecordStore(std::filesystem::path directory);

  const std::filesystem::path &directory() const { return directory_; }

  /// The file a record of this kind and key lives in: <kind>/<hash>.ttr,
  /// the hash of the key, so any key maps to a safe file name.
  std::filesystem::path pathFor(std::string_view kind,
                                std::string_view key) const;

  /// The payload, or none when absent or untrusted (then logged and removed).
  std::optional<std::string> read(std::string_view kind,
                                  std::string_view key) const;
  /// Atomic write; false (logged) when the directory cannot be written.
  bool write(std::string_view kind, std::string_view key,
             std::string_view payload) const;
  bool remove(std::string_view kind, std::string_view key) const;

  /// Every record file under the directory, valid or not.
  std::vector<RecordInfo> list() const;
  /// Removes every record file (and stale temporaries); returns how many.
  int clear() const;

private:
  std::filesystem::path directory_;
};

/// An exclusive lock between processes and threads on one key, held while
/// a process tunes it, so that two processes do not tune the same layer:
/// the second waits, then finds the first one's record. Released on
/// destruction. A lock file that cannot be created gives a lock that holds
/// nothing (logged): correctness never depends on it.
///
/// Locks are flock(2) locks on "<record path>.lock": the kernel releases
/// them when their process dies, so a crash never leaves a stale lock. Each
/// KeyLock opens the file anew, which is what makes it exclude other
/// threads of the same process too; a thread that takes the lock of a key
/// it already holds therefore waits until its wait limit.
class KeyLock {
public:
  /// Blocks until the lock is free, or for `waitLimit` at most: a holder
  /// that is stopped (SIGSTOP, a debugger) would otherwise keep every later
  /// tuner of its key waiting for ever. After the limit, the lock holds
  /// nothing, and a warning says that the caller goes on without it.
  KeyLock(const RecordStore &store, std::string_view kind, std::string_view key,
          std::chrono::duration<double> waitLimit =
              std::chrono::duration<double>::max());
  /// The lock if it is free now, else (quietly) one that holds nothing:
  /// for work that is worth doing only when nobody tunes the key.
  static KeyLock ifFree(const RecordStore &store, std::string_view kind,
                        std::string_view key);
  /// A lock that holds nothing, for a disabled cache.
  KeyLock() = default;
  KeyLock(KeyLock &&other) noexcept;
  ~KeyLock();
  KeyLock(const KeyLock &) = delete;
  KeyLock &operator=(const KeyLock &) = delete;

  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

} // namespace ttile::cache

#endif // TTILE_CACHE_RECORDSTORE_H
