//===- unittests/Cache/CacheTestUtil.h - Scratch dirs, env vars -*- C++ -*-===//
//
// What tests of the cache share: scratch directories, environment guards,
// whole-file reads and writes, the faults of a disk (a full one, a
// directory the process may not write), and hand-made records.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H
#define TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H

#include "Cache/ChoiceCache.h"
#include "Cache/RecordStore.h"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ttile::testing {

/// A directory of its own for one test, removed with everything in it.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ttile-cache-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TemporaryDirectory() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;

  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

/// Sets (or, with none, unsets) an environment variable for one scope.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, std::optional<std::string> value)
      : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    set(value);
  }
  ~ScopedEnvironment() { set(old_); }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  void set(const std::optional<std::string> &value) {
    if (value)
      ::setenv(name_, value->c_str(), 1);
    else
      ::unsetenv(name_);
  }

  const char *name_;
  std::optional<std::string> old_;
};

inline std::string readWholeFile(const std::filesystem::path &path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), {}};
}

inline void writeWholeFile(const std::filesystem::path &path,
                           const std::string &bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

/// The record files (*.ttr) under `directory`, in no particular order.
inline std::vector<std::filesystem::path>
recordFiles(const std::filesystem::path &directory) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator entry(directory, error),
       end;
       !error && entry != end; entry.increment(error))
    if (entry->path().extension() == ".ttr")
      files.push_back(entry->path());
  return files;
}

/// A cache directory of its own for one test: TTILE_CACHE_DIR points to a
/// fresh scratch directory and TTILE_CACHE is unset, so that every
/// KernelCache and Conv2D of the test uses it, whatever the environment.
class IsolatedCache {
public:
  const std::filesystem::path &path() const { return directory_.path(); }
  std::vector<std::filesystem::path> records() const {
    return recordFiles(path());
  }

private:
  TemporaryDirectory directory_;
  ScopedEnvironment cacheDir_{"TTILE_CACHE_DIR", directory_.path().string()};
  ScopedEnvironment cacheSwitch_{"TTILE_CACHE", std::nullopt};
};

/// Limits the size of files this process writes, as a full disk would: a
/// write that crosses the limit is cut short, and the next one fails with
/// EFBIG (instead of raising SIGXFSZ, which is ignored meanwhile). This is
/// the kernel's own failure, on any file system and without privileges,
/// which a tmpfs mounted small would give too but only to root.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &previous_);
    rlimit limit = previous_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, previousHandler_);
  }
  FileSizeLimit(const FileSizeLimit &) = delete;
  FileSizeLimit &operator=(const FileSizeLimit &) = delete;

private:
  rlimit previous_{};
  void (*previousHandler_)(int);
};

/// Runs `body` on a thread that file permissions apply to. Tests often run
/// as root (CI does), and root writes into a directory without write
/// permission: CAP_DAC_OVERRIDE. Linux keeps capabilities per thread, so
/// dropping that one and its two relatives from a thread of its own makes
/// `chmod a-w` bind that thread, and only it, as it binds an ordinary user.
/// Exceptions (and gtest failures) of `body` reach the caller.
inline void runSubjectToFilePermissions(const std::function<void()> &body) {
  if (::geteuid() != 0) {
    body();
    return;
  }
  std::exception_ptr failure;
  std::thread thread([&] {
    try {
      __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
      __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
      if (::syscall(SYS_capget, &header, data) != 0)
        throw std::runtime_error("capget failed");
      for (int capability :
           {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER})
        data[0].effective &= ~(1u << capability);
      if (::syscall(SYS_capset, &header, data) != 0)
        throw std::runtime_error("capset failed");
      body();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  thread.join();
  if (failure)
    std::rethrow_exception(failure);
}

/// Whether this thread can create a file in `directory`.
inline bool canCreateFileIn(const std::filesystem::path &directory) {
  std::filesystem::path probe = directory / "probe";
  std::ofstream file(probe);
  bool created = file.is_open();
  file.close();
  std::error_code error;
  std::filesystem::remove(probe, error);
  return created;
}

/// Rewrites each choice record in `directory` whose key holds `question`
/// ("choice=contraction chain") to choose `choice`, as a hand-made record
/// (its checksum right) would; returns how many it rewrote.
inline int rewriteChoices(const std::filesystem::path &directory,
                          std::string_view question, std::string_view choice) {
  const cache::RecordStore store(directory);
  int rewritten = 0;
  for (const cache::RecordInfo &record : store.list())
    if (record.valid && record.kind == cache::ChoiceCache::kKind &&
        record.key.find(question) != std::string::npos)
      rewritten += store.write(record.kind, record.key, choice);
  return rewritten;
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H
