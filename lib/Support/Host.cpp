//===- Support/Host.cpp - Detect the host CPU -----------------------------===//

#include "Support/Host.h"

#include "Support/Logging.h"
#include "ttile/Error.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace ttile {
namespace {

/// Reads /sys/devices/system/cpu/cpu0/cache/indexN for data and unified
/// caches. Missing files (containers, other OSes) give an empty list.
std::vector<CacheLevel> readDataCaches() {
  std::vector<CacheLevel> caches;
  for (int index = 0; index < 8; ++index) {
    std::string base =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream typeFile(base + "type"), levelFile(base + "level"),
        sizeFile(base + "size"), waysFile(base + "ways_of_associativity");
    std::string type, size;
    int level = 0;
    if (!(typeFile >> type) || !(levelFile >> level) || !(sizeFile >> size))
      break;
    if (type == "Instruction")
      continue;
    int64_t bytes = std::stoll(size);
    if (size.back() == 'K')
      bytes *= 1024;
    else if (size.back() == 'M')
      bytes *= 1024 * 1024;
    int ways = 0;
    if (!(waysFile >> ways))
      ways = 0;
    caches.push_back({level, bytes, ways});
  }
  return caches;
}

/// A CPU `name` with `features` (by name: enabled or not) and `caches`.
HostInfo describe(std::string name, const llvm::StringMap<bool> &features,
                  std::vector<CacheLevel> caches) {
  HostInfo info;
  info.cpuName = std::move(name);
  // Sorted, so that equal feature sets make equal cache keys.
  std::map<std::string, bool> sorted;
  for (const auto &feature : features)
    sorted[feature.first().str()] = feature.second;
  for (const auto &[feature, enabled] : sorted)
    info.features += (info.features.empty() ? "" : ",") +
                     std::string(enabled ? "+" : "-") + feature;
  info.hasAVX512 = features.lookup("avx512f");
  info.hasAVX2 = features.lookup("avx2") && features.lookup("fma");
  if (info.hasAVX512) {
    info.vectorWidth = 16;
    info.vectorRegisters = 32;
  } else if (info.hasAVX2) {
    info.vectorWidth = 8;
    info.vectorRegisters = 16;
  }
  info.fullRateLanes = info.cpuName == "znver4" ? 8 : info.vectorWidth;
  info.dataCaches = std::move(caches);
  return info;
}

/// The CPU `name` as LLVM describes it, with `caches`: its features, vector
/// width and registers. Throws ttile::Error for a name LLVM does not know,
/// or a CPU with a feature the host lacks.
HostInfo targetInfo(const std::string &name, std::vector<CacheLevel> caches) {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    return true;
  }();
  (void)initialized;
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    throw Error("LLVM has no target for " + triple + ": " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, name, ""));
  if (!subtarget || !subtarget->isCPUStringValid(name))
    throw Error("'" + name + "' is not a CPU LLVM knows for " + triple);
  llvm::StringMap<bool> features, hostFeatures = llvm::sys::getHostCPUFeatures();
  std::string missing;
  for (const llvm::SubtargetFeatureKV &feature :
       subtarget->getAllProcessorFeatures()) {
    bool enabled = subtarget->checkFeatures(std::string("+") + feature.Key);
    features[feature.Key] = enabled;
    // A feature LLVM lists for the CPU but cannot detect (tuning flags)
    // is absent from the host's map: only detected ones can be missing.
    auto onHost = hostFeatures.find(feature.Key);
    if (enabled && onHost != hostFeatures.end() && !onHost->second)
      missing += (missing.empty() ? "" : ", ") + std::string(feature.Key);
  }
  if (!missing.empty())
    throw Error("this host lacks features of " + name + " (" + missing +
                "): its kernels could not run here");
  return describe(name, features, std::move(caches));
}

HostInfo detect() {
  std::vector<CacheLevel> caches = readDataCaches();
  if (caches.empty())
    caches = {{1, 32 << 10}, {2, 1 << 20}, {3, 16 << 20}};
  HostInfo hostInfo = describe(llvm::sys::getHostCPUName().str(),
                               llvm::sys::getHostCPUFeatures(), caches);
  const char *target = std::getenv("TTILE_TARGET");
  if (!target || !*target || hostInfo.cpuName == target)
    return hostInfo;
  try {
    HostInfo info = targetInfo(target, caches);
    log().info("TTILE_TARGET={}: generating kernels for {} on this {}",
               target, info.summary(), hostInfo.cpuName);
    return info;
  } catch (const Error &error) {
    log().warn("TTILE_TARGET={} is ignored: {}; generating kernels for "
               "this {}",
               target, error.what(), hostInfo.cpuName);
    return hostInfo;
  }
}

} // namespace

HostInfo HostInfo::avx512() {
  HostInfo info;
  info.cpuName = "skylake-avx512";
  info.features = "+avx512f,+avx2,+fma";
  info.hasAVX512 = info.hasAVX2 = true;
  info.vectorWidth = info.fullRateLanes = 16;
  info.vectorRegisters = 32;
  info.dataCaches = {{1, 32 << 10, 8}, {2, 1 << 20, 16}, {3, 22 << 20, 11}};
  return info;
}

HostInfo HostInfo::avx2() {
  HostInfo info;
  info.cpuName = "haswell";
  info.features = "+avx2,+fma";
  info.hasAVX2 = true;
  info.vectorWidth = info.fullRateLanes = 8;
  info.vectorRegisters = 16;
  info.dataCaches = {{1, 32 << 10, 8}, {2, 256 << 10, 4}, {3, 8 << 20, 16}};
  return info;
}

std::string HostInfo::summary() const {
  std::ostringstream out;
  out << cpuName << ", "
      << (hasAVX512 ? "AVX-512" : hasAVX2 ? "AVX2" : "SSE") << " ("
      << vectorWidth << " x f32, " << vectorRegisters << " registers)";
  for (const CacheLevel &cache : dataCaches)
    out << ", L" << cache.level << " " << cache.bytes / 1024 << " KiB";
  return out.str();
}

const HostInfo &host() {
  static const HostInfo info = detect();
  return info;
}

} // namespace ttile
