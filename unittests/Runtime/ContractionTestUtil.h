//===- unittests/Runtime/ContractionTestUtil.h - A naive einsum -*- C++ -*-===//
//
// The reference the Contraction tests check against, written from the
// API's definition (ContractionParams in ttile.h) rather than from
// lib/Spec: two row-major operands, summed over every letter missing from
// the output, in double precision.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H
#define TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H

#include "ConvTestUtil.h"
#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ttile::testing {

/// One contraction's operands, random, and its output by the naive einsum:
/// every point of the index space adds A's element times B's into C's.
struct EinsumCase {
  ContractionParams params;
  std::string a, b, c; ///< The three terms' letters.
  std::vector<float> A, B;
  std::vector<double> expected, magnitude;

  explicit EinsumCase(ContractionParams p, uint64_t seed = 1)
      : params(std::move(p)) {
    const std::string &einsum = params.einsum;
    const size_t comma = einsum.find(','), arrow = einsum.find("->");
    a = einsum.substr(0, comma);
    b = einsum.substr(comma + 1, arrow - comma - 1);
    c = einsum.substr(arrow + 2);
    A = randomValues(elements(a), seed);
    B = randomValues(elements(b), seed + 1);
    expected.assign(static_cast<size_t>(elements(c)), 0.0);
    magnitude = expected;
    std::vector<char> letters;
    for (auto [letter, size] : params.sizes)
      letters.push_back(letter);
    std::map<char, int64_t> at;
    for (char letter : letters)
      at[letter] = 0;
    while (true) {
      double product = double(A[offset(a, at)]) * B[offset(b, at)];
      expected[offset(c, at)] += product;
      magnitude[offset(c, at)] += std::abs(product);
      size_t l = 0;
      for (; l < letters.size(); ++l) {
        if (++at[letters[l]] < params.sizes.at(letters[l]))
          break;
        at[letters[l]] = 0;
      }
      if (l == letters.size())
        break;
    }
  }

  int64_t elements(const std::string &term) const {
    int64_t count = 1;
    for (char letter : term)
      count *= params.sizes.at(letter);
    return count;
  }
  /// Row-major: the term's last letter is contiguous.
  size_t offset(const std::string &term, std::map<char, int64_t> &at) const {
    int64_t result = 0;
    for (char letter : term)
      result = result * params.sizes.at(letter) + at[letter];
    return static_cast<size_t>(result);
  }

  void expectMatches(const std::vector<float> &C) const {
    ASSERT_EQ(C.size(), expected.size());
    int wrong = 0;
    for (size_t i = 0; i < C.size(); ++i)
      if (!closeEnough(C[i], expected[i], magnitude[i]) && ++wrong <= 5)
        ADD_FAILURE() << params.einsum << ": C[" << i << "] = " << C[i]
                      << ", expected " << expected[i];
  }

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

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_CONTRACTIONTESTUTIL_H
