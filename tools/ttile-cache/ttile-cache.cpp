//===- ttile-cache.cpp - Look into and clear the ttile cache --------------===//
//
//   ttile-cache [--dir DIR] path
//   ttile-cache [--dir DIR] list [WORD...]
//   ttile-cache [--dir DIR] inspect FILE-OR-HASH-PREFIX
//   ttile-cache [--dir DIR] remove FILE-OR-HASH-PREFIX...
//   ttile-cache [--dir DIR] clear
//
// The cache directory is DIR, else the one ttile uses (docs/Cache.md).
// `path` prints it, or "disabled"; `list` prints one line per record (with
// words, those whose line holds every one, e.g. `list op=matmul M=128`);
// `inspect` prints one record in full; `remove` removes the records named;
// `clear` removes every record. Exit status: 0 on success, 1 on errors, 2
// on usage errors.
//
//===----------------------------------------------------------------------===//

#include "Cache/ChoiceCache.h"
#include "Cache/KernelCache.h"
#include "Cache/RecordStore.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

using namespace ttile;
using namespace ttile::cache;
namespace fs = std::filesystem;

namespace {

constexpr int ExitError = 1;
constexpr int ExitUsage = 2;

uintmax_t fileSize(const fs::path &path) {
  std::error_code error;
  uintmax_t size = fs::file_size(path, error);
  return error ? 0 : size;
}

/// "op=conv2d N=1 K=64 ...": the key without the fields that describe the
/// machine and the ttile, which are alike for most records of a directory.
std::string problemFields(std::string_view key) {
  std::string text;
  for (const auto &[field, value] : parseCacheKey(key)) {
    if (isEnvironmentField(field))
      continue;
    if (!text.empty())
      text += ' ';
    text += value.empty() ? field : field + "=" + value;
  }
  return text;
}

/// The record and, for kernel records, the entry in it; a kernel record
/// whose payload does not decode is invalid.
struct LoadedRecord {
  RecordInfo info;
  std::string payload;
  std::optional<KernelEntry> kernel;
  /// A kernel or choice of another ttile, LLVM or CPU, which this one never
  /// loads.
  bool foreign = false;
};

bool isChoice(const RecordInfo &info) {
  return info.valid && info.kind == ChoiceCache::kKind;
}

LoadedRecord loadRecord(const fs::path &file) {
  LoadedRecord record;
  record.info = readRecordInfo(file, &record.payload);
  if (record.info.valid && record.info.kind == KernelCache::kKind) {
    record.kernel = decodeKernelEntry(record.payload, &record.info.problem);
    record.info.valid = record.kernel.has_value();
  }
  if (record.kernel || isChoice(record.info))
    record.foreign = !record.info.key.starts_with(CacheKey().str());
  return record;
}

const char *foreignNote(const LoadedRecord &record) {
  return record.foreign ? " (for another ttile, LLVM or CPU)" : "";
}

/// One line per record whose line holds every word of `words`.
void listRecords(const RecordStore &store,
                 const std::vector<std::string> &words) {
  for (const RecordInfo &listed : store.list()) {
    LoadedRecord record = loadRecord(listed.path);
    const RecordInfo &info = record.info;
    char head[512];
    std::snprintf(head, sizeof head, "%s  %-12s %10ju B  ",
                  info.path.stem().c_str(), info.kind.c_str(),
                  fileSize(info.path));
    std::string line = head;
    if (!info.valid)
      line += "invalid (" + info.problem + ")";
    else if (record.kernel)
      line += std::string("valid") + foreignNote(record) + "  " +
              problemFields(info.key) + "  scheme " + record.kernel->scheme;
    else if (isChoice(info))
      line += std::string("valid") + foreignNote(record) + "  " +
              problemFields(info.key) + "  chose " + record.payload;
    else
      line += "valid  " + info.key;
    if (std::all_of(words.begin(), words.end(), [&](const std::string &word) {
          return line.find(word) != std::string::npos;
        }))
      std::printf("%s\n", line.c_str());
  }
}

/// A record file named by its path or by a prefix of its hash.
fs::path findRecord(const RecordStore &store, const std::string &name) {
  std::error_code error;
  if (fs::is_regular_file(name, error))
    return name;
  bool isHashPrefix =
      !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
      });
  if (!isHashPrefix)
    throw Error("no such file: " + name);
  std::vector<fs::path> matches;
  for (const RecordInfo &info : store.list())
    if (info.path.stem().string().starts_with(name))
      matches.push_back(info.path);
  if (matches.empty())
    throw Error("no record in " + store.directory().string() +
                " has a hash starting with " + name);
  if (matches.size() > 1)
    throw Error(std::to_string(matches.size()) +
                " records have a hash starting with " + name +
                "; give more digits");
  return matches.front();
}

bool isText(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) {
    return std::isprint(static_cast<unsigned char>(c)) ||
           std::isspace(static_cast<unsigned char>(c));
  });
}

void printKernel(const KernelEntry &entry) {
  std::printf("scheme:       %s\n", entry.scheme.c_str());
  std::printf("entry:        %s\n", entry.entryName.c_str());
  std::printf("time:         %.3f us per call\n", entry.seconds * 1e6);
  std::printf("performance:  %.2f GFLOP/s, %.1f%% of peak\n", entry.gflops,
              entry.percentOfPeak);
  std::printf("tuning:       %d trials in %.2f s\n", entry.trials,
              entry.tuningSeconds);
  std::printf("object code:  %zu bytes\n", entry.objectCode.size());
}

void printPayload(const std::string &payload) {
  nlohmann::json json = nlohmann::json::parse(payload, nullptr,
                                              /*allow_exceptions=*/false);
  if (!json.is_discarded())
    std::printf("payload:\n%s\n", json.dump(2).c_str());
  else if (isText(payload))
    std::printf("payload:\n%s\n", payload.c_str());
  else
    std::printf("payload:      %zu bytes of binary data\n", payload.size());
}

void inspectRecord(const RecordStore &store, const std::string &name) {
  LoadedRecord record = loadRecord(findRecord(store, name));
  const RecordInfo &info = record.info;
  std::printf("file:         %s\n", info.path.c_str());
  std::printf("kind:         %s\n", info.kind.c_str());
  std::printf("size:         %ju bytes\n", fileSize(info.path));
  if (!info.valid) {
    std::printf("status:       invalid (%s)\n", info.problem.c_str());
    return;
  }
  std::printf("status:       valid%s\n", foreignNote(record));
  if (!record.kernel && !isChoice(info)) {
    std::printf("key:          %s\n", info.key.c_str());
    printPayload(record.payload);
    return;
  }
  std::printf("key:\n");
  for (const auto &[field, value] : parseCacheKey(info.key))
    std::printf("  %s = %s\n", field.c_str(), value.c_str());
  if (record.kernel)
    printKernel(*record.kernel);
  else if (isText(record.payload))
    std::printf("choice:       %s\n", record.payload.c_str());
  else
    printPayload(record.payload);
}

/// Removes the records `names` name (as inspect finds them), refusing any
/// file that is not a record of this cache directory.
void removeRecords(const RecordStore &store,
                   const std::vector<std::string> &names) {
  std::error_code error;
  fs::path directory = fs::weakly_canonical(store.directory(), error);
  for (const std::string &name : names) {
    fs::path file = fs::weakly_canonical(findRecord(store, name), error);
    if (file.extension() != ".ttr" ||
        file.parent_path().parent_path() != directory)
      throw Error(name + " is not a record of " + store.directory().string());
    if (!fs::remove(file, error))
      throw Error("cannot remove " + file.string() + ": " + error.message());
    std::printf("removed %s\n", file.stem().c_str());
  }
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("List, inspect, remove and clear ttile's cache of tuned "
               "kernels and the model's choices.",
               "ttile-cache");
  app.failure_message([](const CLI::App *, const CLI::Error &error) {
    return "ttile-cache: usage error: " + std::string(error.what()) +
           "\nRun with --help for more information.\n";
  });
  std::string directoryOption;
  app.add_option("--dir", directoryOption,
                 "the cache directory (default: the one ttile uses)");
  app.require_subcommand(1);
  app.fallthrough();
  CLI::App *pathCommand =
      app.add_subcommand("path", "print the cache directory, or 'disabled'");
  CLI::App *listCommand =
      app.add_subcommand("list", "print one line per record");
  std::vector<std::string> listWords;
  listCommand->add_option("words", listWords,
                          "only the records whose line holds every word, "
                          "e.g. op=matmul M=128");
  CLI::App *inspectCommand =
      app.add_subcommand("inspect", "print one record in full");
  std::string recordName;
  inspectCommand
      ->add_option("record", recordName,
                   "the record's file, or a prefix of its hash")
      ->required();
  CLI::App *removeCommand =
      app.add_subcommand("remove", "remove the records named");
  std::vector<std::string> removeNames;
  removeCommand
      ->add_option("records", removeNames,
                   "record files, or prefixes of their hashes")
      ->required();
  CLI::App *clearCommand =
      app.add_subcommand("clear", "remove every record");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    // --help is a ParseError that exits with 0.
    return app.exit(error) == 0 ? 0 : ExitUsage;
  }

  std::optional<fs::path> directory = directoryOption.empty()
                                          ? defaultCacheDirectory()
                                          : fs::path(directoryOption);
  if (pathCommand->parsed()) {
    std::printf("%s\n", directory ? directory->c_str() : "disabled");
    return 0;
  }
  try {
    if (!directory)
      throw Error("the cache is disabled: TTILE_CACHE=off, or its directory "
                  "cannot be created");
    RecordStore store(*directory);
    if (listCommand->parsed())
      listRecords(store, listWords);
    else if (inspectCommand->parsed())
      inspectRecord(store, recordName);
    else if (removeCommand->parsed())
      removeRecords(store, removeNames);
    else if (clearCommand->parsed()) {
      int removed = store.clear();
      std::printf("removed %d record%s\n", removed, removed == 1 ? "" : "s");
    }
  } catch (const Error &error) {
    std::fprintf(stderr, "ttile-cache: error: %s\n", error.what());
    return ExitError;
  }
  return 0;
}
