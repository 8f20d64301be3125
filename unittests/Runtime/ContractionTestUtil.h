//===- unittests/Runtime/ContractionTestUtil.h - A naive einsum -*- C++ -*-===//
//
// The references the Contraction and ContractionChain tests check
// against, written from the API's definition (ContractionParams and
// ContractionChainParams in ttile.h) rather than from lib/Spec: two or
// three row-major operands, summed over every letter missing from the
// output, in double precision.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H
#define TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H

#include "ConvTestUtil.h"
#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace ttile::testing {

/// The letters of each operand, then of the output, of `einsum`.
inline std::vector<std::string> einsumTerms(const std::string &einsum) {
  std::vector<std::string> terms;
  const size_t arrow = einsum.find("->");
  for (size_t begin = 0; begin <= arrow;) {
    const size_t end = std::min(einsum.find(',', begin), arrow);
    terms.push_back(einsum.substr(begin, end - begin));
    begin = end + 1;
  }
  terms.push_back(einsum.substr(arrow + 2));
  return terms;
}

/// Operands of an einsum, random, and its output by the naive einsum:
/// every point of the index space adds the product of the operands'
/// elements into the output's.
class NaiveEinsum {
public:
  NaiveEinsum(const std::string &einsum, std::map<char, int64_t> sizes,
              uint64_t seed)
      : terms(einsumTerms(einsum)), einsum_(einsum), sizes_(std::move(sizes)) {
    const size_t operandCount = terms.size() - 1;
    for (size_t o = 0; o < operandCount; ++o)
      operands.push_back(randomValues(elements(terms[o]), seed + o));
    expected.assign(static_cast<size_t>(elements(terms.back())), 0.0);
    magnitude = expected;
    std::map<char, int64_t> at;
    for (auto [letter, size] : sizes_)
      at[letter] = 0;
    while (true) {
      double product = 1;
      for (size_t o = 0; o < operandCount; ++o)
        product *= operands[o][offset(terms[o], at)];
      expected[offset(terms.back(), at)] += product;
      magnitude[offset(terms.back(), at)] += std::abs(product);
      auto letter = at.begin();
      for (; letter != at.end(); ++letter) {
        if (++letter->second < sizes_.at(letter->first))
          break;
        letter->second = 0;
      }
      if (letter == at.end())
        break;
    }
  }

  void expectMatches(const std::vector<float> &output) const {
    ASSERT_EQ(output.size(), expected.size());
    int wrong = 0;
    for (size_t i = 0; i < output.size(); ++i)
      if (!closeEnough(output[i], expected[i], magnitude[i]) && ++wrong <= 5)
        ADD_FAILURE() << einsum_ << ": output[" << i << "] = " << output[i]
                      << ", expected " << expected[i];
  }

  std::vector<std::string> terms; ///< The operands', then the output's.
  std::vector<std::vector<float>> operands;
  std::vector<double> expected, magnitude;

private:
  int64_t elements(const std::string &term) const {
    int64_t count = 1;
    for (char letter : term)
      count *= sizes_.at(letter);
    return count;
  }
  /// Row-major: the term's last letter is contiguous.
  size_t offset(const std::string &term,
                const std::map<char, int64_t> &at) const {
    int64_t result = 0;
    for (char letter : term)
      result = result * sizes_.at(letter) + at.at(letter);
    return static_cast<size_t>(result);
  }

  std::string einsum_;
  std::map<char, int64_t> sizes_;
};

/// One contraction's operands A and B, random, and C by the naive einsum.
struct EinsumCase : NaiveEinsum {
  ContractionParams params;
  const std::vector<float> &A = operands[0], &B = operands[1];

  explicit EinsumCase(ContractionParams p, uint64_t seed = 1)
      : NaiveEinsum(p.einsum, p.sizes, seed), params(std::move(p)) {}
  EinsumCase(const EinsumCase &) = delete; // A and B refer to its operands.

  /// Runs `contraction` as its params say (B given once with constantB).
  std::vector<float> run(Contraction &contraction) const {
    std::vector<float> C(expected.size(), -7.0f);
    if (params.constantB) {
      contraction.setWeights(B.data());
      contraction.run(A.data(), C.data());
    } else {
      contraction.run(A.data(), B.data(), C.data());
    }
    return C;
  }
};

/// A chain's three operands, random, and D by the naive einsum.
struct ChainCase : NaiveEinsum {
  ContractionChainParams params;

  explicit ChainCase(ContractionChainParams p)
      : NaiveEinsum(p.einsum, p.sizes, 7), params(std::move(p)) {}

  void expectComputedBy(const ContractionChain &chain) const {
    std::vector<float> D(expected.size(), -7.0f);
    chain.run(operands[0].data(), operands[1].data(), operands[2].data(),
              D.data());
    SCOPED_TRACE(chain.plan());
    expectMatches(D);
  }
};

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H
