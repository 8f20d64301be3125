//===- ttile-bench/PeerBench.cpp - One operator against its peers ---------===//

#include "PeerBench.h"

#include "Machine.h"

#include "Measure/AlignedBuffer.h"
#include "Measure/Benchmark.h"
#include "Measure/PeakProbe.h"
#include "ttile/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

namespace ttile::bench {
namespace {

/// Tolerated error per term summed: every value is in [-1, 1), so an
/// element of C sums terms below 1 in magnitude.
constexpr double kErrorPerTerm = 1e-5;

/// What one library did with one problem.
struct Figures {
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

struct Row {
  const PeerProblem *problem = nullptr;
  double peakFlopsPerThread = 0;
  std::vector<Figures> figures; ///< ttile first.

  /// The fastest peer measured; none when no peer was.
  const Figures *bestPeer() const {
    const Figures *best = nullptr;
    for (size_t i = 1; i < figures.size(); ++i)
      if (figures[i].failure.empty() &&
          (!best || figures[i].seconds < best->seconds))
        best = &figures[i];
    return best;
  }
  double gflops(const Figures &f) const {
    return problem->flops / f.seconds * 1e-9;
  }
  double percentOfPeak(const Figures &f, int threads) const {
    return 100 * problem->flops / f.seconds / (peakFlopsPerThread * threads);
  }
};

Row measureProblem(const PeerProblem &problem, int rounds,
                   const measure::PeakKernel &peak) {
  Row row;
  row.problem = &problem;
  const measure::AlignedBuffer A = randomBuffer(problem.aElements, 1);
  const measure::AlignedBuffer B = randomBuffer(problem.bElements, 2);
  std::vector<measure::AlignedBuffer> outputs;
  std::vector<std::function<void()>> runs;
  for (const PeerProblem::Contender &contender : problem.contenders) {
    row.figures.push_back({contender.library, std::numeric_limits<double>::infinity(),
                           contender.failure, 0});
    outputs.emplace_back(static_cast<size_t>(problem.cElements));
    runs.emplace_back();
    if (contender.run)
      runs.back() = [&run = contender.run, &A, &B, C = outputs.back().data()] {
        run(A.data(), B.data(), C);
      };
  }

  // One untimed run each, after B laid out where it is constant, whose
  // outputs are compared with ttile's.
  const float *reference = outputs[0].data();
  for (size_t c = 0; c < runs.size(); ++c) {
    if (!runs[c])
      continue;
    try {
      if (problem.contenders[c].setConstantB)
        problem.contenders[c].setConstantB(B.data());
      runs[c]();
    } catch (const Error &error) {
      row.figures[c].failure = error.what();
      runs[c] = nullptr;
      continue;
    }
    double largest = 0;
    for (int64_t i = 0; i < problem.cElements; ++i)
      largest = std::max<double>(
          largest, std::abs(outputs[c].data()[i] - reference[i]));
    row.figures[c].errorPerTerm =
        largest / static_cast<double>(problem.termsSummed);
  }

  double peakSeconds = std::numeric_limits<double>::infinity();
  for (int round = 0; round < rounds; ++round) {
    peakSeconds = std::min(
        peakSeconds, measure::measure([&peak] { peak.run(); }).minSeconds);
    for (size_t c = 0; c < runs.size(); ++c)
      if (runs[c])
        row.figures[c].seconds = std::min(
            row.figures[c].seconds, measure::measure(runs[c]).medianSeconds);
  }
  row.peakFlopsPerThread = peak.flopsPerCall() / peakSeconds;
  return row;
}

void printHeader(const PeerProblem &first) {
  std::printf("%-18s %9s %7s %9s %6s", "problem", "GFLOP", "tune s", "ttile",
              "%peak");
  for (size_t i = 1; i < first.contenders.size(); ++i)
    std::printf(" %9s", first.contenders[i].library.c_str());
  std::printf(" %8s\n", "vs best");
}

void printRow(const Row &row, int threads) {
  const PeerProblem &problem = *row.problem;
  const Figures &ttile = row.figures.front();
  std::printf("%-18s %9.3f %7.2f %9.1f %6.1f", problem.name.c_str(),
              problem.flops * 1e-9,
              problem.cacheHit ? 0.0 : problem.tuneSeconds, row.gflops(ttile),
              row.percentOfPeak(ttile, threads));
  for (size_t i = 1; i < row.figures.size(); ++i) {
    const Figures &peer = row.figures[i];
    if (peer.failure.empty())
      std::printf(" %9.1f", row.gflops(peer));
    else
      std::printf(" %9s", "failed");
  }
  if (const Figures *best = row.bestPeer())
    std::printf(" %8.2f", best->seconds / ttile.seconds);
  std::printf("\n");
  for (const Figures &f : row.figures) {
    if (!f.failure.empty())
      std::printf("  %s: %s\n", f.name.c_str(), f.failure.c_str());
    else if (f.errorPerTerm > kErrorPerTerm)
      std::printf("  %s disagrees with ttile: %.3g per term summed\n",
                  f.name.c_str(), f.errorPerTerm);
  }
}

nlohmann::json toJson(const Row &row, int threads) {
  const PeerProblem &problem = *row.problem;
  nlohmann::json libraries = nlohmann::json::array();
  for (const Figures &f : row.figures) {
    nlohmann::json entry = {{"library", f.name}};
    if (f.failure.empty()) {
      entry["seconds"] = f.seconds;
      entry["gflops"] = row.gflops(f);
      entry["percentOfPeak"] = row.percentOfPeak(f, threads);
      entry["errorPerTerm"] = f.errorPerTerm;
    } else {
      entry["failure"] = f.failure;
    }
    libraries.push_back(entry);
  }
  nlohmann::json entry = {{"problem", problem.name}};
  entry.update(problem.params);
  entry.update({{"flops", problem.flops},
                {"tuneSeconds", problem.tuneSeconds},
                {"cacheHit", problem.cacheHit},
                {"scheme", problem.scheme},
                {"peakGflopsPerThread", row.peakFlopsPerThread * 1e-9},
                {"libraries", libraries}});
  return entry;
}

void writeJson(const std::string &path, const Machine &machine, int threads,
               const nlohmann::json &rows) {
  nlohmann::json document = {{"machine", bench::toJson(machine)},
                             {"threads", threads},
                             {"problems", rows}};
  std::ofstream file(path);
  file << document.dump(1) << '\n';
  if (!file.flush())
    throw Error("cannot write " + path);
}

} // namespace

bool benchAgainstPeers(size_t count,
                       const std::function<PeerProblem(size_t)> &setUp,
                       const PeerList &peers,
                       const PeerBenchOptions &options) {
  const Machine machine = thisMachine();
  std::printf("%s; %s\n", describe(machine).c_str(),
              describeThreads(options.threads).c_str());
  for (const auto &[name, version] : peers.loaded)
    std::printf("peer %s: %s\n", name.c_str(), version.c_str());
  for (const std::string &note : peers.notes)
    std::printf("%s\n", note.c_str());
  for (const auto &[name, reason] : peers.missing)
    std::printf("peer %s missing: %s\n", name.c_str(), reason.c_str());

  const measure::PeakKernel peak;
  bool allGood = true;
  double flops = 0, ttileSeconds = 0, bestPeerSeconds = 0;
  double lowest = std::numeric_limits<double>::infinity(), highest = 0;
  int behind = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i) {
    const PeerProblem problem = setUp(i);
    if (i == 0)
      printHeader(problem);
    Row row = measureProblem(problem, options.rounds, peak);
    printRow(row, options.threads);
    std::fflush(stdout);
    for (const Figures &f : row.figures)
      allGood &= f.failure.empty() && f.errorPerTerm <= kErrorPerTerm;
    const Figures &ttile = row.figures.front();
    lowest = std::min(lowest, row.gflops(ttile));
    highest = std::max(highest, row.gflops(ttile));
    if (const Figures *best = row.bestPeer()) {
      flops += problem.flops;
      ttileSeconds += ttile.seconds;
      bestPeerSeconds += best->seconds;
      behind += best->seconds < ttile.seconds;
    }
    rows.push_back(toJson(row, options.threads));
    // After every problem, so that a long run cut short keeps its figures.
    if (!options.json.empty())
      writeJson(options.json, machine, options.threads, rows);
  }
  std::printf("ttile: lowest %.1f, highest %.1f GFLOP/s (ratio %.2f)\n",
              lowest, highest, lowest / highest);
  if (flops > 0)
    std::printf("FLOP-weighted: ttile %.1f GFLOP/s, best peer per problem "
                "%.1f, ratio %.2f; ttile behind on %d of %zu\n",
                flops / ttileSeconds * 1e-9, flops / bestPeerSeconds * 1e-9,
                bestPeerSeconds / ttileSeconds, behind, count);
  return allGood;
}

} // namespace ttile::bench
