//===- Support/Host.cpp - Detect the host CPU -----------------------------===//

#include "Support/Host.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>

#include <fstream>
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
        sizeFile(base + "size");
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
    caches.push_back({level, bytes});
  }
  return caches;
}

HostInfo detect() {
  HostInfo info;
  info.cpuName = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::string list;
  for (const auto &feature : features) {
    list += (list.empty() ? "" : ",");
    list += (feature.second ? "+" : "-") + feature.first().str();
  }
  info.features = list;
  info.hasAVX512 = features.lookup("avx512f");
  info.hasAVX2 = features.lookup("avx2") && features.lookup("fma");
  if (info.hasAVX512) {
    info.vectorWidth = 16;
    info.vectorRegisters = 32;
  } else if (info.hasAVX2) {
    info.vectorWidth = 8;
    info.vectorRegisters = 16;
  }
  info.dataCaches = readDataCaches();
  if (info.dataCaches.empty())
    info.dataCaches = {{1, 32 << 10}, {2, 1 << 20}, {3, 16 << 20}};
  return info;
}

} // namespace

HostInfo HostInfo::avx512() {
  HostInfo info;
  info.cpuName = "skylake-avx512";
  info.features = "+avx512f,+avx2,+fma";
  info.hasAVX512 = info.hasAVX2 = true;
  info.vectorWidth = 16;
  info.vectorRegisters = 32;
  info.dataCaches = {{1, 32 << 10}, {2, 1 << 20}, {3, 22 << 20}};
  return info;
}

HostInfo HostInfo::avx2() {
  HostInfo info;
  info.cpuName = "haswell";
  info.features = "+avx2,+fma";
  info.hasAVX2 = true;
  info.vectorWidth = 8;
  info.vectorRegisters = 16;
  info.dataCaches = {{1, 32 << 10}, {2, 256 << 10}, {3, 8 << 20}};
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
