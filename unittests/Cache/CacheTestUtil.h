//===- unittests/Cache/CacheTestUtil.h - Scratch dirs, env vars -*- C++ -*-===//
#ifndef TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H
#define TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

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

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CACHE_CACHETESTUTIL_H
