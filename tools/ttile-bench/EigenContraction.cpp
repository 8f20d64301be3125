//===- ttile-bench/EigenContraction.cpp - Eigen's Tensor contraction ------===//
//
// Eigen's tensors have their rank in their type, so a contraction is a
// template instance per (rank of A, rank of B, letters summed): those of
// the TCCG cases and the extra set are instantiated below, and any other
// is reported as missing.
//
//===----------------------------------------------------------------------===//

#include "ContractionPeers.h"

#include "ContractionShapes.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include <array>
#include <vector>

namespace ttile::bench {
namespace {

/// A contraction as Eigen computes it: contract() sums the pairs and
/// leaves A's other axes then B's, which shuffle() puts in C's order.
struct EigenLayout {
  std::vector<Eigen::Index> aDims, bDims, cDims;
  std::vector<std::pair<Eigen::Index, Eigen::Index>> pairs;
  std::vector<Eigen::Index> shuffle;
};

template <int RankA, int RankB, int Summed>
OperandRun eigenContraction(const EigenLayout &layout) {
  constexpr int RankC = RankA + RankB - 2 * Summed;
  using Index = Eigen::Index;
  std::array<Index, RankA> aDims;
  std::array<Index, RankB> bDims;
  std::array<Index, RankC> cDims, shuffle;
  std::array<Eigen::IndexPair<Index>, Summed> pairs;
  std::copy(layout.aDims.begin(), layout.aDims.end(), aDims.begin());
  std::copy(layout.bDims.begin(), layout.bDims.end(), bDims.begin());
  std::copy(layout.cDims.begin(), layout.cDims.end(), cDims.begin());
  std::copy(layout.shuffle.begin(), layout.shuffle.end(), shuffle.begin());
  for (int i = 0; i < Summed; ++i)
    pairs[i] = {layout.pairs[i].first, layout.pairs[i].second};
  return [=](const float *A, const float *B, float *C) {
    Eigen::TensorMap<const Eigen::Tensor<float, RankA, Eigen::RowMajor>> a(
        A, aDims);
    Eigen::TensorMap<const Eigen::Tensor<float, RankB, Eigen::RowMajor>> b(
        B, bDims);
    Eigen::TensorMap<Eigen::Tensor<float, RankC, Eigen::RowMajor>> c(C, cDims);
    c = a.contract(b, pairs).shuffle(shuffle);
  };
}

struct Instance {
  int rankA, rankB, summed;
  OperandRun (*make)(const EigenLayout &);
};

// TCCG's shapes and doitgen's (rqs,sp->rqp).
constexpr Instance kInstances[] = {
    {2, 2, 1, &eigenContraction<2, 2, 1>},
    {3, 2, 1, &eigenContraction<3, 2, 1>},
    {4, 2, 1, &eigenContraction<4, 2, 1>},
    {5, 2, 1, &eigenContraction<5, 2, 1>},
    {2, 3, 1, &eigenContraction<2, 3, 1>},
    {2, 4, 1, &eigenContraction<2, 4, 1>},
    {3, 3, 2, &eigenContraction<3, 3, 2>},
    {4, 3, 2, &eigenContraction<4, 3, 2>},
    {4, 4, 2, &eigenContraction<4, 4, 2>},
    {4, 4, 1, &eigenContraction<4, 4, 1>},
};

} // namespace

bool haveEigen(std::string &versionOrReason) {
  versionOrReason = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                    std::to_string(EIGEN_MAJOR_VERSION) + "." +
                    std::to_string(EIGEN_MINOR_VERSION) + " (one thread)";
  return true;
}

OperandRun eigenRun(const ContractionParams &params) {
  const std::vector<std::string> terms = einsumTerms(params.einsum);
  const std::string &a = terms[0], &b = terms[1], &c = terms[2];
  EigenLayout layout;
  std::string left; // contract()'s result: A's free letters, then B's.
  for (size_t i = 0; i < a.size(); ++i) {
    layout.aDims.push_back(params.sizes.at(a[i]));
    size_t inB = b.find(a[i]);
    if (inB != std::string::npos && c.find(a[i]) != std::string::npos)
      throw Error(std::string("Eigen: '") + a[i] + "' is a batch letter");
    if (inB != std::string::npos)
      layout.pairs.emplace_back(i, inB);
    else
      left += a[i];
  }
  for (char letter : b) {
    layout.bDims.push_back(params.sizes.at(letter));
    if (a.find(letter) == std::string::npos)
      left += letter;
  }
  for (char letter : left)
    if (c.find(letter) == std::string::npos)
      throw Error(std::string("Eigen: '") + letter +
                  "' is summed within one operand");
  for (char letter : c) {
    layout.cDims.push_back(params.sizes.at(letter));
    layout.shuffle.push_back(static_cast<Eigen::Index>(left.find(letter)));
  }
  const int rankA = static_cast<int>(a.size()), rankB = static_cast<int>(b.size());
  const int summed = static_cast<int>(layout.pairs.size());
  for (const Instance &instance : kInstances)
    if (instance.rankA == rankA && instance.rankB == rankB &&
        instance.summed == summed)
      return instance.make(layout);
  throw Error("Eigen: no instance for ranks " + std::to_string(rankA) + " x " +
              std::to_string(rankB) + " summing " + std::to_string(summed) +
              " (tools/ttile-bench/EigenContraction.cpp)");
}

} // namespace ttile::bench
