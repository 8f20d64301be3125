//===- Search/MicrokernelTable.cpp - The offline stage's result on disk ---===//

#include "Search/MicrokernelTable.h"

#include "Cache/KernelCache.h"
#include "Cache/RecordStore.h"
#include "Search/DefaultMicrokernels.h"
#include "Support/Host.h"
#include "Support/JsonNumbers.h"
#include "Support/Logging.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <ctime>
#include <sstream>

namespace ttile::search {

using nlohmann::json;

namespace {

constexpr int kFormat = 1;
/// Far above any register tile; a larger factor is corruption.
constexpr int64_t kMaxFactor = 1024;
/// A microkernel cannot be ten times faster than the peak probe.
constexpr double kMaxPercent = 1000;

constexpr TableOrigin kOrigins[] = {
    TableOrigin::Measured, TableOrigin::MeasuredQuick, TableOrigin::BuiltIn};

std::string utcNow() {
  std::time_t now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// Thrown while reading a table: what is wrong with it.
struct Invalid {
  std::string why;
};

void require(bool condition, const std::string &why) {
  if (!condition)
    throw Invalid{why};
}

/// Factors of the family's arity in [1, kMaxFactor]; the combination one
/// may be 0 when `shape` (a class shape leaves it unspecified).
std::vector<int64_t> readFactors(const json &value,
                                 const MicrokernelFamily &family, bool shape) {
  require(value.is_array() && value.size() == family.unrolled.size(),
          "factors are not a list of " +
              std::to_string(family.unrolled.size()) + " integers");
  std::vector<int64_t> factors;
  for (size_t i = 0; i < value.size(); ++i) {
    std::optional<int64_t> read = exactInteger<int64_t>(value[i]);
    require(read.has_value(), "a factor is not an integer");
    int64_t factor = *read;
    bool unspecified =
        shape && family.unrolled[i] == family.combinationDim && factor == 0;
    require(unspecified || (factor >= 1 && factor <= kMaxFactor),
            "factor " + std::to_string(factor) + " along " +
                family.unrolled[i] + " is out of range");
    require(!shape || family.unrolled[i] != family.combinationDim ||
                unspecified,
            "a class shape fixes the combination dimension");
    factors.push_back(factor);
  }
  return factors;
}

double readPercent(const json &value) {
  require(value.is_number(), "a percentage is not a number");
  double percent = value.get<double>();
  require(std::isfinite(percent) && percent >= 0 && percent <= kMaxPercent,
          "percentage " + std::to_string(percent) + " is out of range");
  return percent;
}

MicrokernelClass readClass(const json &value, const MicrokernelFamily &family) {
  MicrokernelClass group;
  group.shape.factors = readFactors(value.at("shape"), family, true);
  const json &sizes = value.at("sizes");
  require(sizes.is_array() && !sizes.empty(), "a class has no sizes");
  for (const json &size : sizes) {
    std::optional<int64_t> read = exactInteger<int64_t>(size);
    require(read.has_value(), "a class size is not an integer");
    int64_t factor = *read;
    require(factor >= 1 && factor <= kMaxFactor &&
                (group.combinationSizes.empty() ||
                 factor > group.combinationSizes.back()),
            "class sizes are not ascending integers in range");
    group.combinationSizes.push_back(factor);
  }
  group.bestPercentOfPeak = readPercent(value.at("best"));
  return group;
}

MicrokernelTable readTable(const json &document,
                           const MicrokernelFamily &family) {
  require(document.is_object(), "not a JSON object");
  require(document.at("format") == kFormat, "another format version");
  MicrokernelTable table;
  table.family = document.at("family").get<std::string>();
  require(table.family == family.name, "a table of another family");
  require(document.at("dims").get<std::vector<std::string>>() ==
              family.unrolled,
          "the dimensions are not the family's");
  std::string origin = document.at("origin").get<std::string>();
  auto known = std::find_if(std::begin(kOrigins), std::end(kOrigins),
                            [&](TableOrigin candidate) {
                              return tableOriginName(candidate) == origin;
                            });
  require(known != std::end(kOrigins), "unknown origin '" + origin + "'");
  table.origin = *known;
  table.key = document.at("key").get<std::string>();
  table.cpuName = document.at("cpu").get<std::string>();
  table.date = document.at("date").get<std::string>();
  table.bounds = document.at("bounds").get<std::string>();
  table.threshold = document.at("threshold").get<double>();
  require(table.threshold > 0 && table.threshold <= 1,
          "threshold out of range");
  table.peakFlops = document.at("peakGflops").get<double>() * 1e9;
  require(table.peakFlops >= 0, "negative peak");
  table.stageSeconds = document.at("stageSeconds").get<double>();
  std::optional<int> passes = exactInteger<int>(document.at("passes"));
  require(passes && *passes >= 1, "passes out of range");
  table.passes = *passes;
  std::optional<size_t> failed = exactInteger<size_t>(document.at("failed"));
  require(failed.has_value(), "the failure count is not a count");
  table.failed = *failed;
  for (const json &entry : document.at("measured"))
    table.measured.push_back(
        {Microkernel{readFactors(entry.at("factors"), family, false)},
         readPercent(entry.at("percent"))});
  for (const json &entry : document.at("classes"))
    table.classes.push_back(readClass(entry, family));
  require(!table.classes.empty(), "no class");
  return table;
}

} // namespace

std::string_view tableOriginName(TableOrigin origin) {
  switch (origin) {
  case TableOrigin::Measured:
    return "measured";
  case TableOrigin::MeasuredQuick:
    return "measured-quick";
  case TableOrigin::BuiltIn:
    return "built-in";
  }
  return "unknown";
}

std::string microkernelTableKey(const MicrokernelFamily &family,
                                const UnrollBounds &bounds, double threshold,
                                bool quick) {
  std::ostringstream thresholdText;
  thresholdText << threshold;
  return cache::CacheKey()
      .add("family", family.name)
      .add("bounds", bounds.name)
      .add("threshold", thresholdText.str())
      .add("candidates", quick ? "quick" : "full")
      .str();
}

std::string tableToJson(const MicrokernelTable &table,
                        const MicrokernelFamily &family) {
  json measured = json::array();
  for (const MeasuredMicrokernel &entry : table.measured)
    measured.push_back(
        {{"factors", entry.kernel.factors}, {"percent", entry.percentOfPeak}});
  json classes = json::array();
  for (const MicrokernelClass &group : table.classes)
    classes.push_back({{"shape", group.shape.factors},
                       {"sizes", group.combinationSizes},
                       {"best", group.bestPercentOfPeak}});
  json document = {{"format", kFormat},
                   {"family", table.family},
                   {"dims", family.unrolled},
                   {"combinationDim", family.combinationDim},
                   {"vectorDim", family.vectorDim},
                   {"origin", tableOriginName(table.origin)},
                   {"key", table.key},
                   {"cpu", table.cpuName},
                   {"date", table.date},
                   {"bounds", table.bounds},
                   {"threshold", table.threshold},
                   {"peakGflops", table.peakFlops * 1e-9},
                   {"stageSeconds", table.stageSeconds},
                   {"passes", table.passes},
                   {"failed", table.failed},
                   {"measured", std::move(measured)},
                   {"classes", std::move(classes)}};
  return document.dump(1);
}

std::optional<MicrokernelTable> tableFromJson(std::string_view text,
                                              const MicrokernelFamily &family,
                                              std::string *whyNot) {
  try {
    return readTable(json::parse(text), family);
  } catch (const Invalid &invalid) {
    if (whyNot)
      *whyNot = invalid.why;
  } catch (const json::exception &error) {
    if (whyNot)
      *whyNot = error.what();
  }
  return std::nullopt;
}

MicrokernelTable measureMicrokernelTable(const MicrokernelFamily &family,
                                         const UnrollBounds &bounds,
                                         double threshold, bool quick,
                                         const StageOptions &options) {
  std::vector<Microkernel> candidates = enumerate(family, bounds);
  if (quick)
    candidates = quickSubset(family, candidates);
  StageOptions hostOptions = options;
  hostOptions.bench.vectorWidth = host().vectorWidth;
  StageResult result = runOfflineStage(family, candidates, hostOptions);

  MicrokernelTable table;
  table.family = family.name;
  table.origin = quick ? TableOrigin::MeasuredQuick : TableOrigin::Measured;
  table.key = microkernelTableKey(family, bounds, threshold, quick);
  table.cpuName = host().cpuName;
  table.date = utcNow();
  table.bounds = bounds.name;
  table.threshold = threshold;
  table.peakFlops = result.peakFlops;
  table.stageSeconds = result.wallSeconds;
  table.passes = std::max(options.passes, 1);
  table.failed = result.failed;
  table.classes = formClasses(family, result.measured, threshold);
  table.measured = std::move(result.measured);
  return table;
}

std::optional<MicrokernelTable> loadTable(const cache::RecordStore &store,
                                          const MicrokernelFamily &family,
                                          const std::string &key) {
  std::optional<std::string> payload = store.read(kMicrokernelRecordKind, key);
  if (!payload)
    return std::nullopt;
  std::string whyNot;
  std::optional<MicrokernelTable> table =
      tableFromJson(*payload, family, &whyNot);
  if (table && table->key != key) {
    whyNot = "it names another key";
    table.reset();
  }
  if (!table) {
    log().warn("the microkernel table {} is not a valid table ({}); removed",
               store.pathFor(kMicrokernelRecordKind, key).string(), whyNot);
    store.remove(kMicrokernelRecordKind, key);
  }
  return table;
}

bool storeTable(const cache::RecordStore &store, const MicrokernelTable &table,
                const MicrokernelFamily &family) {
  return store.write(kMicrokernelRecordKind, table.key,
                     tableToJson(table, family));
}

TableRequest defaultTableRequest() {
  TableRequest request;
  request.cacheDirectory = cache::defaultCacheDirectory();
  return request;
}

MicrokernelTable microkernelTable(const MicrokernelFamily &family,
                                  const TableRequest &request) {
  const UnrollBounds &bounds = UnrollBounds::forHost(host());
  std::optional<cache::RecordStore> store;
  if (request.cacheDirectory)
    store.emplace(*request.cacheDirectory);
  if (store)
    for (bool quick : {false, true})
      if (std::optional<MicrokernelTable> table = loadTable(
              *store, family,
              microkernelTableKey(family, bounds, request.threshold, quick)))
        return *table;

  if (request.whenMissing != WhenMissing::UseBuiltIn) {
    bool quick = request.whenMissing == WhenMissing::MeasureQuick;
    log().info("measuring the {} microkernels of this {} ({})", family.name,
               host().cpuName, quick ? "quick subset" : "all candidates");
    MicrokernelTable table = measureMicrokernelTable(
        family, bounds, request.threshold, quick, request.stage);
    if (!table.classes.empty()) {
      if (store)
        storeTable(*store, table, family);
      return table;
    }
    log().error("no {} microkernel ran correctly; using the built-in table",
                family.name);
  } else {
    log().info("no measured {} microkernel table for this {}; using the "
               "built-in one (run ttile-microkernels to measure it)",
               family.name, host().cpuName);
  }
  return builtInMicrokernelTable(family, host());
}

} // namespace ttile::search
