//===- ttile-bench/MatMulBench.cpp - ttile's MatMul against the BLAS ------===//

#include "MatMulBench.h"

#include "GemmPeers.h"
#include "Machine.h"
#include "OneDnnConv.h"

#include "Measure/AlignedBuffer.h"
#include "Measure/Benchmark.h"
#include "Measure/PeakProbe.h"

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

namespace ttile::bench {
namespace {

/// Tolerated error of a product, per term summed: every value is in
/// [-1, 1), so an element of C sums K terms below 1 in magnitude.
constexpr double kErrorPerTerm = 1e-5;

/// What one library did with one problem.
struct Contender {
  explicit Contender(std::string library) : name(std::move(library)) {}

  std::string name;
  double seconds = std::numeric_limits<double>::infinity();
  std::string failure; ///< Empty when measured.
  double errorPerTerm = 0; ///< Against ttile's C.
};

measure::AlignedBuffer randomBuffer(int64_t elements, uint64_t seed) {
  measure::AlignedBuffer buffer(static_cast<size_t>(elements));
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::generate_n(buffer.data(), elements, [&] { return value(random); });
  return buffer;
}

GemmPeers allPeers(int threads) {
  GemmPeers peers = loadGemmPeers(threads);
  try {
    std::unique_ptr<GemmPeer> onednn = oneDnnMatMulPeer();
    setOneDnnThreads(threads);
    peers.loaded.push_back(std::move(onednn));
  } catch (const Error &error) {
    peers.missing.push_back({"oneDNN", error.what()});
  }
  return peers;
}

struct Row {
  std::string name;
  MatMulParams params;
  double flops = 0, tuneSeconds = 0, peakFlopsPerThread = 0;
  bool cacheHit = false;
  std::string scheme;
  std::vector<Contender> contenders; ///< ttile first.

  /// The fastest peer measured; none when no peer was.
  const Contender *bestPeer() const {
    const Contender *best = nullptr;
    for (size_t i = 1; i < contenders.size(); ++i)
      if (contenders[i].failure.empty() &&
          (!best || contenders[i].seconds < best->seconds))
        best = &contenders[i];
    return best;
  }
  double gflops(const Contender &contender) const {
    return flops / contender.seconds * 1e-9;
  }
};

Row measureProblem(const tools::NamedMatMul &problem, GemmPeers &peers,
                   const MatMulBenchOptions &options,
                   const measure::PeakKernel &peak) {
  Row row;
  row.name = problem.name;
  row.params = problem.params;
  MatMul matmul(problem.params);
  row.flops = static_cast<double>(matmul.flops());
  TuneOptions tune;
  tune.trials = options.trials;
  matmul.tune(tune);
  row.tuneSeconds = matmul.tuneInfo().seconds;
  row.cacheHit = matmul.tuneInfo().cacheHit;
  row.scheme = matmul.scheme();

  const measure::AlignedBuffer A = randomBuffer(matmul.aElements(), 1);
  const measure::AlignedBuffer B = randomBuffer(matmul.bElements(), 2);
  std::vector<measure::AlignedBuffer> outputs;
  for (size_t i = 0; i <= peers.loaded.size(); ++i)
    outputs.emplace_back(static_cast<size_t>(matmul.cElements()));

  // Each contender's call, writing into its own output (none when it
  // could not be set up); ttile first.
  std::vector<std::function<void()>> runs;
  row.contenders.emplace_back("ttile");
  runs.push_back([&, C = outputs[0].data()] {
    matmul.run(A.data(), B.data(), nullptr, C);
  });
  for (size_t p = 0; p < peers.loaded.size(); ++p) {
    GemmPeer &peer = *peers.loaded[p];
    row.contenders.emplace_back(peer.name());
    runs.emplace_back();
    try {
      peer.prepare(problem.params);
      runs.back() = [&peer, &problem, &A, &B, C = outputs[p + 1].data()] {
        peer.run(problem.params, A.data(), B.data(), C);
      };
    } catch (const Error &error) {
      row.contenders.back().failure = error.what();
    }
  }

  // One untimed run each, whose outputs are compared with ttile's.
  const float *reference = outputs[0].data();
  for (size_t c = 0; c < runs.size(); ++c) {
    if (!runs[c])
      continue;
    runs[c]();
    double largest = 0;
    for (int64_t i = 0; i < matmul.cElements(); ++i)
      largest = std::max<double>(
          largest, std::abs(outputs[c].data()[i] - reference[i]));
    row.contenders[c].errorPerTerm =
        largest / static_cast<double>(problem.params.K);
  }

  double peakSeconds = std::numeric_limits<double>::infinity();
  for (int round = 0; round < options.rounds; ++round) {
    peakSeconds = std::min(
        peakSeconds, measure::measure([&peak] { peak.run(); }).minSeconds);
    for (size_t c = 0; c < runs.size(); ++c)
      if (runs[c])
        row.contenders[c].seconds =
            std::min(row.contenders[c].seconds,
                     measure::measure(runs[c]).medianSeconds);
  }
  row.peakFlopsPerThread = peak.flopsPerCall() / peakSeconds;
  return row;
}

void printHeader(const std::vector<std::string> &names) {
  std::printf("%-18s %9s %7s %9s %6s", "problem", "GFLOP", "tune s",
              "ttile", "%peak");
  for (size_t i = 1; i < names.size(); ++i)
    std::printf(" %9s", names[i].c_str());
  std::printf(" %8s\n", "vs best");
}

void printRow(const Row &row, int threads) {
  const Contender &ttile = row.contenders.front();
  std::printf("%-18s %9.3f %7.2f %9.1f %6.1f", row.name.c_str(),
              row.flops * 1e-9, row.cacheHit ? 0.0 : row.tuneSeconds,
              row.gflops(ttile),
              100 * row.flops / ttile.seconds /
                  (row.peakFlopsPerThread * threads));
  for (size_t i = 1; i < row.contenders.size(); ++i) {
    const Contender &peer = row.contenders[i];
    if (peer.failure.empty())
      std::printf(" %9.1f", row.gflops(peer));
    else
      std::printf(" %9s", "failed");
  }
  const Contender *best = row.bestPeer();
  if (best)
    std::printf(" %8.2f", best->seconds / ttile.seconds);
  std::printf("\n");
  for (const Contender &contender : row.contenders) {
    if (!contender.failure.empty())
      std::printf("  %s: %s\n", contender.name.c_str(),
                  contender.failure.c_str());
    else if (contender.errorPerTerm > kErrorPerTerm)
      std::printf("  %s disagrees with ttile: %.3g per term summed\n",
                  contender.name.c_str(), contender.errorPerTerm);
  }
}

nlohmann::json toJson(const Row &row, int threads) {
  nlohmann::json contenders = nlohmann::json::array();
  for (const Contender &contender : row.contenders) {
    nlohmann::json entry = {{"library", contender.name}};
    if (contender.failure.empty()) {
      entry["seconds"] = contender.seconds;
      entry["gflops"] = row.gflops(contender);
      entry["percentOfPeak"] = 100 * row.flops / contender.seconds /
                               (row.peakFlopsPerThread * threads);
      entry["errorPerTerm"] = contender.errorPerTerm;
    } else {
      entry["failure"] = contender.failure;
    }
    contenders.push_back(entry);
  }
  const MatMulParams &p = row.params;
  return {{"problem", row.name},
          {"batch", p.batch},
          {"M", p.M},
          {"N", p.N},
          {"K", p.K},
          {"transB", p.transB},
          {"flops", row.flops},
          {"tuneSeconds", row.tuneSeconds},
          {"cacheHit", row.cacheHit},
          {"scheme", row.scheme},
          {"peakGflopsPerThread", row.peakFlopsPerThread * 1e-9},
          {"libraries", contenders}};
}

} // namespace

bool benchMatMuls(const std::vector<tools::NamedMatMul> &problems,
                  const MatMulBenchOptions &options) {
  const Machine machine = thisMachine();
  std::printf("%s; %d thread(s)\n", describe(machine).c_str(),
              options.threads);
  GemmPeers peers = allPeers(options.threads);
  std::vector<std::string> names = {"ttile"};
  for (const auto &peer : peers.loaded) {
    std::printf("peer %s: %s\n", peer->name().c_str(),
                peer->version().c_str());
    names.push_back(peer->name());
  }
  std::printf("BLAS kernels: %s\n", blasKernelChoice().c_str());
  for (const MissingPeer &missing : peers.missing)
    std::printf("peer %s missing: %s\n", missing.name.c_str(),
                missing.reason.c_str());
  printHeader(names);

  const measure::PeakKernel peak;
  bool allGood = true;
  double flops = 0, ttileSeconds = 0, bestPeerSeconds = 0;
  double lowest = std::numeric_limits<double>::infinity(), highest = 0;
  int behind = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const tools::NamedMatMul &problem : problems) {
    Row row = measureProblem(problem, peers, options, peak);
    printRow(row, options.threads);
    std::fflush(stdout);
    for (const Contender &contender : row.contenders)
      allGood &= contender.failure.empty() &&
                 contender.errorPerTerm <= kErrorPerTerm;
    const Contender &ttile = row.contenders.front();
    lowest = std::min(lowest, row.gflops(ttile));
    highest = std::max(highest, row.gflops(ttile));
    if (const Contender *best = row.bestPeer()) {
      flops += row.flops;
      ttileSeconds += ttile.seconds;
      bestPeerSeconds += best->seconds;
      behind += best->seconds < ttile.seconds;
    }
    rows.push_back(toJson(row, options.threads));
  }
  std::printf("ttile: lowest %.1f, highest %.1f GFLOP/s (ratio %.2f)\n",
              lowest, highest, lowest / highest);
  if (flops > 0)
    std::printf("FLOP-weighted: ttile %.1f GFLOP/s, best peer per problem "
                "%.1f, ratio %.2f; ttile behind on %d of %zu\n",
                flops / ttileSeconds * 1e-9, flops / bestPeerSeconds * 1e-9,
                bestPeerSeconds / ttileSeconds, behind, problems.size());
  if (!options.json.empty()) {
    nlohmann::json document = {{"machine", bench::toJson(machine)},
                               {"threads", options.threads},
                               {"problems", rows}};
    std::ofstream file(options.json);
    file << document.dump(1) << '\n';
    if (!file.flush())
      throw Error("cannot write " + options.json);
  }
  return allGood;
}

} // namespace ttile::bench
