//===- ttile-bench/MatMulBench.cpp - ttile's MatMul against the BLAS ------===//

#include "MatMulBench.h"

#include "GemmPeers.h"
#include "OneDnnConv.h"
#include "PeerBench.h"

#include <memory>

namespace ttile::bench {

GemmPeers allGemmPeers(int threads) {
  GemmPeers peers = loadGemmPeers(threads);
  try {
    std::unique_ptr<GemmPeer> onednn = oneDnnMatMulPeer();
    setOneDnnThreads(threads);
    peers.loaded.push_back(std::move(onednn));
  } catch (const Error &error) {
    peers.missing.push_back({"oneDNN", error.what()});
  }
  try {
    peers.loaded.push_back(libxsmmPeer(threads));
  } catch (const Error &error) {
    peers.missing.push_back({"libxsmm", error.what()});
  }
  return peers;
}

PeerList peerListOf(const GemmPeers &peers) {
  PeerList list;
  for (const auto &peer : peers.loaded)
    list.loaded.emplace_back(peer->name(), peer->version());
  for (const MissingPeer &missing : peers.missing)
    list.missing.emplace_back(missing.name, missing.reason);
  list.notes.push_back("BLAS kernels: " + blasKernelChoice());
  return list;
}

bool benchMatMuls(const std::vector<tools::NamedMatMul> &problems,
                  const PeerBenchOptions &options) {
  GemmPeers peers = allGemmPeers(options.threads);
  auto setUp = [&](size_t i) {
    const tools::NamedMatMul &named = problems[i];
    MatMulParams p = named.params;
    p.constantB = options.constantB;
    PeerProblem problem =
        tunedProblem<MatMul>(named.name, p, options.trials);
    problem.params = {{"batch", p.batch},   {"M", p.M},
                      {"N", p.N},           {"K", p.K},
                      {"transB", p.transB}, {"constantB", p.constantB}};
    for (const std::unique_ptr<GemmPeer> &loaded : peers.loaded) {
      GemmPeer &peer = *loaded;
      problem.contenders.push_back({peer.name(), nullptr, ""});
      try {
        peer.prepare(p);
        problem.contenders.back().run = [&peer, p](const float *A,
                                                   const float *B, float *C) {
          peer.run(p, A, B, C);
        };
        if (p.constantB)
          problem.contenders.back().setConstantB = [&peer](const float *B) {
            peer.setConstantB(B);
          };
      } catch (const Error &error) {
        problem.contenders.back().failure = error.what();
      }
    }
    return problem;
  };
  PeerList peerList = peerListOf(peers);
  if (options.constantB)
    peerList.notes.push_back(
        "B constant: given once, untimed, to ttile's setWeights() and "
        "oneDNN's reorder; the other peers read B every call");
  return benchAgainstPeers(problems.size(), setUp, peerList, options);
}

} // namespace ttile::bench
