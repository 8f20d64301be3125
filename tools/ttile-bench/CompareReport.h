//===- ttile-bench/CompareReport.h - What compare prints --------*- C++ -*-===//
//
// The comparison of each network as a table, one row per layer printed as
// soon as it is measured, and a summary line: the layers where ttile is at
// least as fast, and the FLOP-weighted averages of both libraries' % of
// peak, of ttile's speedup and of the speedup ttile would have at the peak.
// Each layer weighs its work times the number of times the network
// computes it. Also as JSON and CSV, for the plots.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_COMPAREREPORT_H
#define TTILE_TOOLS_TTILE_BENCH_COMPAREREPORT_H

#include "Compare.h"
#include "Machine.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace ttile::bench {

/// A network given by --net, or the layers given by --layer.
struct NetworkComparison {
  std::string name;
  std::vector<LayerComparison> layers;
};

struct NetworkSummary {
  int compared = 0;  ///< Layers both libraries measured.
  int ttileWins = 0; ///< Of those, where ttile is at least as fast.
  int ttileMeasured = 0, failed = 0, disagreements = 0;
  /// FLOP-weighted averages over the compared layers, or, with none (no
  /// oneDNN), ttile's over the layers it measured.
  double ttilePercentOfPeak = 0, onednnPercentOfPeak = 0, speedup = 0;
  /// The speedup ttile would reach running every compared layer at the
  /// measured peak, skipping the padding's taps: no kernel does better, so
  /// where oneDNN is near the peak, this bounds what a better ttile could
  /// show. FLOP-weighted like `speedup`.
  double speedupAtPeak = 0;
};

NetworkSummary summarize(const NetworkComparison &network);

/// The table of one network.
class CompareTable {
public:
  /// `bandwidthGBs`: the machine's, next to which depthwise layers report
  /// the bytes per second they move.
  CompareTable(std::FILE *out, const std::vector<tools::NamedLayer> &layers,
               double bandwidthGBs);

  void printHeader() const;
  void printRow(const LayerComparison &layer) const;
  void printSummary(const NetworkComparison &network) const;

private:
  /// The range of the peaks measured with the layers: how far the
  /// machine's speed drifted during the network.
  void printPeakRange(const NetworkComparison &network) const;
  void printMemoryBound(const NetworkComparison &network) const;

  std::FILE *out_;
  int nameWidth_, shapeWidth_;
  double bandwidthGBs_;
};

nlohmann::json toJson(const std::vector<NetworkComparison> &networks,
                      const Machine &machine, const CompareOptions &options);

/// One line per layer, with a header line.
std::string toCsv(const std::vector<NetworkComparison> &networks);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_COMPAREREPORT_H
