//===- unittests/Scheme/SchemeParserTest.cpp - Parse and print schemes ----===//

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <string>

using namespace ttile;
using namespace ttile::scheme;

namespace {

/// The message of the InvalidScheme error parsing `text` throws; fails the
/// test if it throws anything else or nothing.
std::string parseError(const std::string &text) {
  try {
    parseScheme(text);
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidScheme) << text;
    return error.what();
  }
  ADD_FAILURE() << "'" << text << "' parsed";
  return "";
}

TEST(SchemeParser, EveryAtom) {
  Scheme scheme = parseScheme(
      "R(j) T(4,k) U(6,i) U(lambda,h) V(j) Lambda(h,[(2,11),(1,12)]) "
      "Hoist(c,r,s) Pack(B) Pack(B,[k,j]) Tpar(8,k) Tfused([(h,2),(k,4)])");
  ASSERT_EQ(scheme.atoms.size(), 11u);
  EXPECT_EQ(std::get<RAtom>(scheme.atoms[0]).dim, "j");
  EXPECT_EQ(std::get<TAtom>(scheme.atoms[1]).count, 4);
  EXPECT_EQ(std::get<TAtom>(scheme.atoms[1]).dim, "k");
  const auto &unroll = std::get<UAtom>(scheme.atoms[2]);
  EXPECT_FALSE(unroll.parametric);
  EXPECT_EQ(unroll.count, 6);
  EXPECT_EQ(unroll.dim, "i");
  EXPECT_TRUE(std::get<UAtom>(scheme.atoms[3]).parametric);
  EXPECT_EQ(std::get<UAtom>(scheme.atoms[3]).dim, "h");
  EXPECT_EQ(std::get<VAtom>(scheme.atoms[4]).dim, "j");
  const auto &lambda = std::get<LambdaAtom>(scheme.atoms[5]);
  EXPECT_EQ(lambda.dim, "h");
  EXPECT_EQ(lambda.parts,
            (std::vector<std::pair<int64_t, int64_t>>{{2, 11}, {1, 12}}));
  EXPECT_EQ(std::get<HoistAtom>(scheme.atoms[6]).dims,
            (std::vector<std::string>{"c", "r", "s"}));
  EXPECT_EQ(std::get<PackAtom>(scheme.atoms[7]).tensor, "B");
  EXPECT_TRUE(std::get<PackAtom>(scheme.atoms[7]).permutation.empty());
  EXPECT_EQ(std::get<PackAtom>(scheme.atoms[8]).permutation,
            (std::vector<std::string>{"k", "j"}));
  EXPECT_EQ(std::get<TparAtom>(scheme.atoms[9]).count, 8);
  EXPECT_EQ(std::get<TfusedAtom>(scheme.atoms[10]).loops,
            (std::vector<std::pair<std::string, int64_t>>{{"h", 2}, {"k", 4}}));
}

TEST(SchemeParser, AtomNames) {
  Scheme scheme = parseScheme("R(a) T(1,a) U(1,a) V(a) Lambda(a,[(1,1),(1,2)]) "
                              "Hoist(a) Pack(X) Tpar(1,a) Tfused([(a,1)])");
  std::vector<std::string> names;
  for (const Atom &atom : scheme.atoms)
    names.push_back(atomName(atom));
  EXPECT_EQ(names,
            (std::vector<std::string>{"R", "T", "U", "V", "Lambda", "Hoist",
                                      "Pack", "Tpar", "Tfused"}));
}

TEST(SchemeParser, CanonicalRoundTrip) {
  const char *canonical[] = {
      // The paper's BLIS-like matmul, with nc=256, mc=96, nk=256.
      "R(j) R(k) R(i) T(16,j) T(16,i) T(256,k) U(6,i) U(2,j) V(j)",
      // 128 = 12*6 + 8*7 (paper Fig. 5).
      "R(j) Lambda(i,[(12,6),(8,7)]) T(64,k) U(lambda,i) U(2,j) V(j)",
      // Yolo9000-13 (paper 4.2).
      ("T(16,k) Lambda(h,[(2,11),(1,12)]) T(17,w) T(3,s) T(3,r) T(2,w) "
       "T(256,c) U(lambda,h) U(2,k) V(k)"),
      "R(k) R(i) Pack(B,[j,k]) Hoist(k) T(16,k) R(j)",
      "Tfused([(h,2),(k,4)]) Tpar(3,w) Pack(I) U(1073741824,x_1)",
      "Lambda(h,[(1,2),(3,4),(5,6)]) U(lambda,h)",
      // Vectors of 8 lanes fixed (Zen 4, 24 output channels).
      "T(56,h) Hoist(c) T(24,c) U(6,c) U(14,w) U(3,k) V(k,8)",
  };
  for (const char *text : canonical) {
    Scheme scheme = parseScheme(text);
    EXPECT_EQ(printScheme(scheme), text);
    EXPECT_EQ(parseScheme(printScheme(scheme)), scheme) << text;
  }
  // The lanes are part of the atom.
  EXPECT_NE(parseScheme("U(3,k) V(k,8)"), parseScheme("U(3,k) V(k)"));
}

TEST(SchemeParser, WhitespaceIsFreeBetweenTokens) {
  Scheme spaced = parseScheme(
      "\t R ( j )\n Lambda ( i , [ ( 12 , 6 ) , ( 8 , 7 ) ] )  T(64 ,k) "
      "U( lambda,i) Pack( B , [ k , j ] ) Tfused( [ ( h , 2 ) ] ) V(j)  \n");
  EXPECT_EQ(printScheme(spaced),
            "R(j) Lambda(i,[(12,6),(8,7)]) T(64,k) U(lambda,i) Pack(B,[k,j]) "
            "Tfused([(h,2)]) V(j)");
}

TEST(SchemeParser, PrintsAtoms) {
  EXPECT_EQ(printAtom(UAtom{1, "h", true}), "U(lambda,h)");
  EXPECT_EQ(printAtom(LambdaAtom{"h", {{2, 11}, {1, 12}}}),
            "Lambda(h,[(2,11),(1,12)])");
  EXPECT_EQ(printAtom(PackAtom{"B", {"k", "j"}}), "Pack(B,[k,j])");
  EXPECT_EQ(printAtom(TfusedAtom{{{"h", 2}, {"k", 4}}}),
            "Tfused([(h,2),(k,4)])");
  EXPECT_EQ(printScheme(Scheme{}), "");
}

TEST(SchemeParser, ParametricUnrollsCompareWithoutCount) {
  // The count of U(lambda,d) is meaningless, so it must not break equality.
  EXPECT_EQ((Scheme{{UAtom{1, "h", true}}}), (Scheme{{UAtom{7, "h", true}}}));
}

struct Malformed {
  const char *text;
  const char *message; ///< A substring of the expected message.
};

TEST(SchemeParser, MalformedInputsGiveSpecificErrors) {
  const Malformed cases[] = {
      {"", "empty scheme"},
      {"   \t\n", "empty scheme"},
      {"R(j", "column 4: expected ')' to close R, found end of input"},
      {"R(j))", "column 5: expected whitespace or the end of the scheme after "
                "an atom, found ')'"},
      {"R(j)R(k)", "column 5: expected whitespace or the end of the scheme"},
      {"R(j) )", "column 6: expected an atom (R, T, U, V, Lambda, Hoist, Pack, "
                 "Tpar or Tfused), found ')'"},
      {"R(j) junk", "column 6: expected an atom"},
      {"r(j)", "column 1: expected an atom (R, T, U, V, Lambda, Hoist, Pack, "
               "Tpar or Tfused), found 'r'"},
      {"Rj)", "column 1: expected an atom (R, T, U, V, Lambda, Hoist, Pack, "
              "Tpar or Tfused), found 'Rj'"},
      {"R j)", "column 3: expected '(' after R, found 'j'"},
      {"R()", "column 3: expected a dimension name in R, found ')'"},
      {"R(2h)", "column 3: expected a dimension name in R, found '2h'"},
      {"R(h-1)", "column 4: expected ')' to close R, found '-1'"},
      {"T(,h)", "column 3: expected the count of T (a positive integer), "
                "found ','"},
      {"T(4)", "column 4: expected ',' after the count of T, found ')'"},
      {"T(0,h)", "column 3: the count of T must be positive, found '0'"},
      {"V(k,0)", "column 5: the lanes of V must be positive, found '0'"},
      {"V(k,)", "column 5: expected the lanes of V (a positive integer), "
                "found ')'"},
      {"R(k,8)", "column 4: expected ')' to close R, found ','"},
      {"T(-3,h)", "column 3: expected the count of T (a positive integer), "
                  "found '-3'"},
      {"T(+3,h)", "column 3: expected the count of T (a positive integer), "
                  "found '+3'"},
      {"T(007,h)", "column 3: the count of T must not have leading zeros, "
                   "found '007'"},
      {"T(1073741825,h)", "column 3: the count of T is too large (the limit "
                          "is 1073741824), found '1073741825'"},
      {"U(99999999999999999999999999,h)",
       "column 3: the count of U is too large"},
      {"T(4.5,h)", "column 4: expected ',' after the count of T, found '.'"},
      {"T(4,h,w)", "column 6: expected ')' to close T, found ','"},
      {"U(lambdas,h)", "column 3: expected the count of U (a positive "
                       "integer) or 'lambda', found 'lambdas'"},
      {"V(j", "column 4: expected ')' to close V"},
      {"Lambda(h,[(2,11)])", "column 17: a Lambda needs at least two "
                             "(repetitions, factor) parts, found ']'"},
      {"Lambda(h,[])", "column 11: expected '(' to open a (repetitions, "
                       "factor) part of Lambda, found ']'"},
      {"Lambda(h,(2,11),(1,12))", "column 10: expected '[' to open the list "
                                  "of Lambda parts, found '('"},
      {"Lambda(h,[(2,11),(1,12)", "column 24: expected ']' or ',' in the list "
                                  "of Lambda parts, found end of input"},
      {"Lambda(h,[(2,11),(1)])", "column 20: expected ',' after the "
                                 "repetitions of a Lambda part, found ')'"},
      {"Lambda(h,[(2,0),(1,12)])", "column 14: the factor of a Lambda part "
                                   "must be positive"},
      {"Lambda([(2,11),(1,12)])", "column 8: expected a dimension name in "
                                  "Lambda, found '['"},
      {"Hoist()", "column 7: expected a dimension name in Hoist, found ')'"},
      {"Hoist(c,)", "column 9: expected a dimension name in Hoist, found ')'"},
      {"Hoist(c r)", "column 9: expected ')' or ',' in Hoist, found 'r'"},
      {"Pack()", "column 6: expected a tensor name in Pack, found ')'"},
      {"Pack(B,[])", "column 9: expected an axis name in Pack, found ']'"},
      {"Pack(B,k,j)", "column 8: expected '[' to open the list of axes of "
                      "Pack, found 'k'"},
      {"Tpar(h,4)", "column 6: expected the count of Tpar (a positive "
                    "integer), found 'h'"},
      {"Tfused([])", "column 9: expected '(' to open a (dimension, count) "
                     "loop of Tfused, found ']'"},
      {"Tfused([(4,h)])", "column 10: expected a dimension name in Tfused, "
                          "found '4'"},
      {"Tfused((h,4))", "column 8: expected '[' to open the list of Tfused "
                        "loops, found '('"},
      {"R(j) \x01", "column 6: expected an atom (R, T, U, V, Lambda, Hoist, "
                    "Pack, Tpar or Tfused), found '\\x01'"},
      {"R(\xc3\xa9)", "column 3: expected a dimension name in R, found "
                      "'\\xc3'"},
  };
  for (const Malformed &c : cases)
    EXPECT_NE(parseError(c.text).find(c.message), std::string::npos)
        << "input: '" << c.text << "'\nmessage: " << parseError(c.text)
        << "\nexpected to contain: " << c.message;
}

TEST(SchemeParser, EmbeddedNulIsAnErrorNotTheEnd) {
  std::string text("R(j)\0 R(k)", 10);
  EXPECT_NE(parseError(text).find("column 5: expected whitespace or the end "
                                  "of the scheme after an atom, found '\\x00'"),
            std::string::npos);
}

TEST(SchemeParser, EveryPrefixOfAValidSchemeFailsCleanly) {
  // Truncation at every byte exercises each "found end of input" path; none
  // may read past the end of the text.
  const std::string text = "R(j) Lambda(i,[(12,6),(8,7)]) Hoist(k) "
                           "Pack(B,[k,j]) Tfused([(h,2)]) U(lambda,i) V(j)";
  for (size_t length = 0; length < text.size(); ++length) {
    std::string prefix = text.substr(0, length);
    try {
      Scheme scheme = parseScheme(prefix);
      EXPECT_EQ(parseScheme(printScheme(scheme)), scheme);
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidScheme);
    }
  }
}

} // namespace
