//===- ttile-bench/ContractionBench.cpp - Contractions against TTGT and Eigen ===//

#include "ContractionBench.h"

#include "ContractionPeers.h"
#include "MatMulBench.h"

#include <memory>

namespace ttile::bench {
namespace {

/// The GEMM of TTGT: the first loaded of MKL, OpenBLAS, BLIS and oneDNN.
GemmPeer *bestGemm(const GemmPeers &peers) {
  for (const char *name : {"MKL", "OpenBLAS", "BLIS", "oneDNN"})
    for (const std::unique_ptr<GemmPeer> &peer : peers.loaded)
      if (peer->name() == name)
        return peer.get();
  return nullptr;
}

} // namespace

bool benchContractions(const std::vector<tools::NamedContraction> &problems,
                       const PeerBenchOptions &options) {
  GemmPeers gemms = allGemmPeers(options.threads);
  GemmPeer *gemm = bestGemm(gemms);
  PeerList peers;
  if (gemm)
    peers.loaded.emplace_back("TTGT+" + gemm->name(), gemm->version());
  else
    peers.missing.emplace_back("TTGT", "no BLAS library was loaded");
  for (const MissingPeer &missing : gemms.missing)
    peers.notes.push_back("(BLAS " + missing.name + " missing: " +
                          missing.reason + ")");
  std::string eigenVersion;
  const bool eigen = haveEigen(eigenVersion);
  if (eigen)
    peers.loaded.emplace_back("Eigen", eigenVersion);
  else
    peers.missing.emplace_back("Eigen", eigenVersion);
  peers.notes.push_back("BLAS kernels: " + blasKernelChoice());

  auto setUp = [&](size_t i) {
    const tools::NamedContraction &named = problems[i];
    ContractionParams p = named.params;
    p.constantB = options.constantB;
    PeerProblem problem =
        tunedProblem<Contraction>(named.name, p, options.trials);
    nlohmann::json sizes;
    for (auto [letter, size] : p.sizes)
      sizes[std::string(1, letter)] = size;
    problem.params = {
        {"einsum", p.einsum}, {"sizes", sizes}, {"constantB", p.constantB}};
    auto addPeer = [&](std::string name, auto setUpCalls) {
      problem.contenders.push_back({std::move(name), nullptr, ""});
      try {
        setUpCalls(problem.contenders.back());
      } catch (const Error &error) {
        problem.contenders.back().failure = error.what();
      }
    };
    if (gemm)
      addPeer("TTGT+" + gemm->name(), [&](PeerProblem::Contender &contender) {
        setUpTtgt(p, *gemm, contender);
      });
    if (eigen)
      addPeer("Eigen", [&](PeerProblem::Contender &contender) {
        if (options.threads != 1)
          throw Error("Eigen runs on one thread here");
        contender.run = eigenRun(p);
      });
    return problem;
  };
  if (options.constantB)
    peers.notes.push_back("B constant: given once, untimed, to ttile's "
                          "setWeights() and to TTGT's transpose of B; Eigen "
                          "reads B every call");
  return benchAgainstPeers(problems.size(), setUp, peers, options);
}

} // namespace ttile::bench
