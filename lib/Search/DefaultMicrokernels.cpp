//===- Search/DefaultMicrokernels.cpp - Tables for a fresh install --------===//

#include "Search/DefaultMicrokernels.h"

#include "Support/Host.h"
#include "ttile/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::search {

namespace {

// The texts of lib/Search/BuiltInTables/*.json, in the order
// lib/Search/CMakeLists.txt lists them: kBuiltInTableTexts.
#include "Search/BuiltInTables.inc"

/// A built-in table and the hosts (LLVM CPU names) it is chosen for.
struct BuiltInTable {
  MicrokernelTable table;
  std::vector<std::string> hosts;
};

/// Every built-in table, read once. The files are part of the source tree
/// and a unit test reads them all: an invalid one is a build defect.
const std::vector<BuiltInTable> &builtInTables() {
  static const std::vector<BuiltInTable> tables = [] {
    std::vector<BuiltInTable> result;
    for (std::string_view text : kBuiltInTableTexts) {
      nlohmann::json document = nlohmann::json::parse(text);
      const MicrokernelFamily *family = MicrokernelFamily::find(
          document.at("family").get<std::string>());
      std::string whyNot = "no family of that name";
      std::optional<MicrokernelTable> table =
          family ? tableFromJson(text, *family, &whyNot) : std::nullopt;
      if (!table)
        throw Error("the built-in microkernel table of " +
                        document.at("cpu").get<std::string>() +
                        " is invalid: " + whyNot,
                    ErrorCode::Internal);
      result.push_back(
          {std::move(*table),
           document.at("hosts").get<std::vector<std::string>>()});
    }
    return result;
  }();
  return tables;
}

/// The built-in table of `familyName` for the host's register file: the
/// one measured on the host's kind of CPU, else the first one listed.
const MicrokernelTable &chooseTable(const std::string &familyName,
                                    const HostInfo &host) {
  const std::string &bounds = UnrollBounds::forHost(host).name;
  const MicrokernelTable *fallback = nullptr;
  for (const BuiltInTable &builtIn : builtInTables()) {
    if (builtIn.table.family != familyName || builtIn.table.bounds != bounds)
      continue;
    if (std::find(builtIn.hosts.begin(), builtIn.hosts.end(), host.cpuName) !=
        builtIn.hosts.end())
      return builtIn.table;
    if (!fallback)
      fallback = &builtIn.table;
  }
  if (!fallback)
    throw Error("no built-in " + familyName + " microkernel table for " +
                    bounds,
                ErrorCode::Internal);
  return *fallback;
}

/// The matmul class of a conv2d class, if it has one (s = r = w = 1):
/// matmul's dimensions play the conv2d ones of thesis 2.2.2.
std::optional<MicrokernelClass> matmulClass(const MicrokernelClass &convClass) {
  const MicrokernelFamily &family = MicrokernelFamily::matmul();
  const MicrokernelFamily &conv = MicrokernelFamily::conv2d();
  const Microkernel &convShape = convClass.shape;
  const std::map<std::string, std::string> counterpart = {
      {"k", "c"}, {"i", "h"}, {"j", "k"}};
  for (const std::string &dim : conv.unrolled) {
    bool mapped =
        std::any_of(counterpart.begin(), counterpart.end(),
                    [&](const auto &pair) { return pair.second == dim; });
    if (!mapped && convShape.factor(conv, dim) != 1)
      return std::nullopt;
  }
  MicrokernelClass result{Microkernel{}, convClass.combinationSizes,
                          convClass.bestPercentOfPeak};
  for (const std::string &dim : family.unrolled)
    result.shape.factors.push_back(convShape.factor(conv, counterpart.at(dim)));
  return result;
}

} // namespace

MicrokernelTable builtInMicrokernelTable(const MicrokernelFamily &family,
                                         const HostInfo &host) {
  if (family.name != MicrokernelFamily::matmul().name)
    return chooseTable(family.name, host);
  // The matmul classes are the conv2d ones with s = r = w = 1.
  const MicrokernelTable &conv =
      chooseTable(MicrokernelFamily::conv2d().name, host);
  MicrokernelTable table = conv;
  table.family = family.name;
  table.classes.clear();
  for (const MicrokernelClass &convClass : conv.classes)
    if (std::optional<MicrokernelClass> translated = matmulClass(convClass))
      table.classes.push_back(std::move(*translated));
  return table;
}

} // namespace ttile::search
