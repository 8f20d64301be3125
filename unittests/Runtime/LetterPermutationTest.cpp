//===- unittests/Runtime/LetterPermutationTest.cpp ------------------------===//
//
// LetterPermutation against the definition: each element of the source at
// its letters' indices lands where the destination's order puts the same
// indices; on runs (the last letter kept last), in squares of 16 (moved;
// the square's edges cut where a size is no multiple of 16), with letters
// of size 1, on the pool (large) and not (small); the squares moved
// through SSE registers and, where the host has them, AVX-512 registers.
//
//===----------------------------------------------------------------------===//

#include "Runtime/LetterPermutation.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace ttile::runtime {
namespace {

/// The row-major offset of the point `at` in a tensor of `letters`.
int64_t offsetOf(const std::string &letters,
                 const std::map<char, int64_t> &sizes,
                 const std::map<char, int64_t> &at) {
  int64_t offset = 0;
  for (char letter : letters)
    offset = offset * sizes.at(letter) + at.at(letter);
  return offset;
}

void expectPermutesWith(SquareCopyISA isa, const std::string &from,
                        const std::string &to,
                        const std::map<char, int64_t> &sizes) {
  SCOPED_TRACE(from + " -> " + to +
               (isa == SquareCopyISA::AVX512 ? " (AVX-512)" : " (SSE)"));
  const LetterPermutation permutation(from, to, sizes, isa);
  std::vector<float> src(static_cast<size_t>(permutation.elements()));
  std::iota(src.begin(), src.end(), 0.0f);
  std::vector<float> dst(src.size(), -1.0f);
  permutation.apply(src.data(), dst.data());
  std::map<char, int64_t> at;
  for (char letter : from)
    at[letter] = 0;
  for (int64_t point = 0; point < permutation.elements(); ++point) {
    int64_t rest = point;
    for (size_t l = from.size(); l-- > 0;) {
      at[from[l]] = rest % sizes.at(from[l]);
      rest /= sizes.at(from[l]);
    }
    ASSERT_EQ(dst[static_cast<size_t>(offsetOf(to, sizes, at))],
              src[static_cast<size_t>(offsetOf(from, sizes, at))]);
  }
}

/// With each ISA the host can run.
void expectPermutes(const std::string &from, const std::string &to,
                    const std::map<char, int64_t> &sizes) {
  expectPermutesWith(SquareCopyISA::SSE, from, to, sizes);
  if (host().hasAVX512)
    expectPermutesWith(SquareCopyISA::AVX512, from, to, sizes);
}

TEST(LetterPermutationTest, MovesEveryElementWhereTheOrderSays) {
  const std::map<char, int64_t> sizes{
      {'a', 5}, {'b', 3}, {'c', 4}, {'d', 2}, {'e', 1}};
  expectPermutes("abcd", "acbd", sizes);   // runs along d
  expectPermutes("abcd", "bcda", sizes);   // a moved last: floats
  expectPermutes("dcba", "abcd", sizes);   // reversed
  expectPermutes("aebcd", "bcdae", sizes); // a letter of size 1
  const std::map<char, int64_t> large{{'a', 72}, {'b', 60}, {'c', 6}};
  expectPermutes("bca", "cba", large); // on the pool: 25920 floats
  expectPermutes("abc", "cba", large);
  expectPermutes("abc", "acb", large); // c, contiguous, first of the square
  const std::map<char, int64_t> square{{'i', 37}, {'j', 33}, {'b', 3}};
  expectPermutes("ij", "ji", square);   // a matrix transposed
  expectPermutes("bij", "jbi", square); // another letter between the two
  expectPermutes("ijb", "bji", square);
  // The contiguous letter outermost, another between it and the last: the
  // tiles run in the destination's order (attention's scores written back).
  const std::map<char, int64_t> scores{{'q', 40}, {'k', 5}, {'h', 12}};
  expectPermutes("khq", "qkh", scores);
  expectPermutes("qkh", "khq", scores);
}

TEST(LetterPermutationTest, CopiesOnlyWhereTheLayoutsDiffer) {
  const std::map<char, int64_t> sizes{{'a', 5}, {'b', 1}, {'c', 4}};
  EXPECT_FALSE(LetterPermutation("abc", "abc", sizes).copies());
  EXPECT_FALSE(LetterPermutation("abc", "bac", sizes).copies());
  EXPECT_FALSE(LetterPermutation("abc", "acb", sizes).copies());
  EXPECT_TRUE(LetterPermutation("abc", "cba", sizes).copies());
  EXPECT_EQ(LetterPermutation("abc", "cba", sizes).elements(), 20);
}

} // namespace
} // namespace ttile::runtime
