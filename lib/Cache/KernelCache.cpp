//===- Cache/KernelCache.cpp - Tuned kernels kept across runs -------------===//

#include "Cache/KernelCache.h"

#include "Scheme/SchemeParser.h"

#include "Cache/ReportOnce.h"
#include "JIT/KernelJIT.h"
#include "Support/Host.h"
#include "Support/JsonNumbers.h"
#include "Support/Logging.h"
#include "ttile/Error.h"
#include "ttile/Version.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <functional>

namespace ttile::cache {
namespace {

constexpr std::array<std::string_view, 4> kEnvironmentFields = {
    "ttile", "llvm", "cpu", "features"};

void appendEscaped(std::string &out, std::string_view text) {
  for (char c : text) {
    if (c == '\\' || c == ';' || c == '=')
      out.push_back('\\');
    out.push_back(c);
  }
}

} // namespace

CacheKey::CacheKey() {
  add(kEnvironmentFields[0], versionString);
  add(kEnvironmentFields[1], llvmVersionString);
  add(kEnvironmentFields[2], host().cpuName);
  add(kEnvironmentFields[3], host().features);
}

CacheKey &CacheKey::add(std::string_view field, std::string_view value) {
  appendEscaped(text_, field);
  text_.push_back('=');
  appendEscaped(text_, value);
  text_.push_back(';');
  return *this;
}

CacheKey &CacheKey::add(std::string_view field, int64_t value) {
  return add(field, std::to_string(value));
}

std::vector<std::pair<std::string, std::string>>
parseCacheKey(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> fields(1);
  bool inValue = false;
  for (size_t i = 0; i < text.size(); ++i) {
    std::string &current = inValue ? fields.back().second : fields.back().first;
    if (text[i] == '\\' && i + 1 < text.size())
      current.push_back(text[++i]);
    else if (text[i] == '=' && !inValue)
      inValue = true;
    else if (text[i] == ';') {
      fields.emplace_back();
      inValue = false;
    } else
      current.push_back(text[i]);
  }
  if (fields.back().first.empty() && fields.back().second.empty())
    fields.pop_back();
  return fields;
}

bool isEnvironmentField(std::string_view field) {
  return std::find(kEnvironmentFields.begin(), kEnvironmentFields.end(),
                   field) != kEnvironmentFields.end();
}

std::string encodeKernelEntry(const KernelEntry &entry) {
  nlohmann::json header = {
      {"scheme", entry.scheme},
      {"entryName", entry.entryName},
      {"seconds", entry.seconds},
      {"percentOfPeak", entry.percentOfPeak},
      {"gflops", entry.gflops},
      {"trials", entry.trials},
      {"trialsAsked", entry.trialsAsked},
      {"tuningSeconds", entry.tuningSeconds},
      {"objectBytes", entry.objectCode.size()},
  };
  // dump() escapes control characters, so the header is one line.
  return header.dump() + "\n" + entry.objectCode;
}

std::optional<KernelEntry> decodeKernelEntry(std::string_view payload,
                                             std::string *whyNot) {
  auto reject = [&](std::string reason) -> std::optional<KernelEntry> {
    if (whyNot)
      *whyNot = "kernel entry: " + std::move(reason);
    return std::nullopt;
  };
  size_t newline = payload.find('\n');
  if (newline == std::string_view::npos)
    return reject("no header line");
  nlohmann::json header = nlohmann::json::parse(payload.substr(0, newline),
                                                nullptr,
                                                /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object())
    return reject("the header is not a JSON object");
  KernelEntry entry;
  std::optional<int> trials;
  std::optional<int> trialsAsked;
  std::optional<uint64_t> objectBytes;
  try {
    header.at("scheme").get_to(entry.scheme);
    header.at("entryName").get_to(entry.entryName);
    header.at("seconds").get_to(entry.seconds);
    header.at("percentOfPeak").get_to(entry.percentOfPeak);
    header.at("gflops").get_to(entry.gflops);
    trials = exactInteger<int>(header.at("trials"));
    trialsAsked = header.contains("trialsAsked")
                      ? exactInteger<int>(header.at("trialsAsked"))
                      : trials;
    header.at("tuningSeconds").get_to(entry.tuningSeconds);
    objectBytes = exactInteger<uint64_t>(header.at("objectBytes"));
  } catch (const nlohmann::json::exception &error) {
    return reject(std::string("bad header: ") + error.what());
  }
  if (!trials || *trials < 0)
    return reject("bad header: trials is not a count");
  if (!trialsAsked || *trialsAsked < 0)
    return reject("bad header: trialsAsked is not a count");
  if (!objectBytes)
    return reject("bad header: objectBytes is not a size");
  entry.trials = *trials;
  entry.trialsAsked = *trialsAsked;
  std::string_view object = payload.substr(newline + 1);
  if (*objectBytes != object.size())
    return reject("the header announces " + std::to_string(*objectBytes) +
                  " bytes of object code, the record holds " +
                  std::to_string(object.size()));
  entry.objectCode = object;
  return entry;
}

KernelCache::KernelCache(std::optional<std::filesystem::path> directory) {
  if (directory)
    store_.emplace(std::move(*directory));
}

std::optional<KernelEntry> KernelCache::load(const CacheKey &key) const {
  if (!store_)
    return std::nullopt;
  std::optional<std::string> payload = store_->read(kKind, key.str());
  if (!payload)
    return std::nullopt;
  std::string problem;
  if (std::optional<KernelEntry> entry = decodeKernelEntry(*payload, &problem))
    return entry;
  std::filesystem::path path = store_->pathFor(kKind, key.str());
  if (reportOnce("read " + path.string()))
    log().warn("ignoring cache record {}: {}; it will be rebuilt",
               path.string(), problem);
  store_->remove(kKind, key.str());
  return std::nullopt;
}

bool KernelCache::store(const CacheKey &key, const KernelEntry &entry) const {
  return store_ && store_->write(kKind, key.str(), encodeKernelEntry(entry));
}

KeyLock KernelCache::lockIfFree(const CacheKey &key) const {
  if (!store_)
    return KeyLock();
  return KeyLock::ifFree(*store_, kKind, key.str());
}

KeyLock KernelCache::lockForTuning(
    const CacheKey &key, std::chrono::duration<double> waitLimit) const {
  if (!store_)
    return KeyLock();
  return KeyLock(*store_, kKind, key.str(), waitLimit);
}

std::optional<jit::Kernel> linkEntry(const spec::Spec &spec,
                                     const KernelEntry &entry) {
  try {
    if (entry.entryName != jit::kKernelEntryName)
      throw Error("its entry point is '" + entry.entryName + "', not '" +
                      jit::kKernelEntryName + "'",
                  ErrorCode::CacheError);
    return jit::linkKernel(spec, scheme::parseScheme(entry.scheme),
                           entry.objectCode);
  } catch (const Error &error) {
    // Until tune() replaces the entry, every run() of every Conv2D of this
    // problem finds it again: say it once per process and entry.
    std::hash<std::string> hash;
    if (reportOnce("link " + spec.str() + " " +
                   std::to_string(hash(entry.scheme) ^ hash(entry.entryName) ^
                                  hash(entry.objectCode))))
      log().warn("cannot use the cached kernel {}: {}; it will be rebuilt",
                 entry.scheme, error.what());
    return std::nullopt;
  }
}

} // namespace ttile::cache
