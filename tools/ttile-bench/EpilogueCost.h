//===- ttile-bench/EpilogueCost.h - What an epilogue costs ------*- C++ -*-===//
//
// `ttile-bench compare --epilogue-cost`: for each layer with an epilogue
// (an activation, a residual or both), the ratio time(with) / time(without)
// in each library, the layer without it keeping its bias. Both variants of
// both libraries are timed in the same rounds (compareVariants), so the
// ratios compare work, not moments of a shared machine. ttile tunes each
// variant apart, as an application would (the cache keys the epilogue):
// where the winners' schemes differ, the ratio includes that choice, and
// the row says so. So a third ratio isolates the epilogue: the scheme ttile
// tuned with it, compiled for both variants and timed alternately as
// kernels (measure::measureAlternately), the residual then a tensor of its
// own rather than the output.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_EPILOGUECOST_H
#define TTILE_TOOLS_TTILE_BENCH_EPILOGUECOST_H

#include "Compare.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ttile::bench {

/// Whether the layer has an activation or a residual.
bool hasEpilogue(const Conv2DParams &params);

/// The layer without its activation and residual, named after it.
tools::NamedLayer withoutEpilogue(const tools::NamedLayer &layer);

struct EpilogueCost {
  LayerComparison with, without;
  /// time(with) / time(without) of ttile's kernels of one scheme, the one
  /// tuned with the epilogue; none when ttile failed.
  std::optional<double> sameSchemeRatio;

  /// time(with) / time(without), when the library measured both.
  std::optional<double> ttileRatio() const;
  std::optional<double> onednnRatio() const;
  /// ttile's two winners are the same scheme.
  bool sameScheme() const;
};

EpilogueCost measureEpilogueCost(const tools::NamedLayer &layer,
                                 const CompareOptions &options,
                                 const measure::PeakKernel &peak);

/// The costs of one network's layers as a table, then a summary line: the
/// network's time with its epilogues over its time without them, each layer
/// weighted by its count, in each library.
class EpilogueCostTable {
public:
  EpilogueCostTable(std::FILE *out, const std::vector<tools::NamedLayer> &layers);

  void printHeader() const;
  void printRow(const EpilogueCost &cost) const;
  void printSummary(const std::string &network,
                    const std::vector<EpilogueCost> &costs) const;

private:
  std::FILE *out_;
  int nameWidth_, shapeWidth_;
};

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_EPILOGUECOST_H
