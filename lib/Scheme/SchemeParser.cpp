//===- Scheme/SchemeParser.cpp - Parse and print schemes ------------------===//
//
// A hand-written recursive-descent parser over the grammar of
// docs/SchemeLanguage.md. It reads the text byte by byte through peek() and
// never indexes past the end, so that any input, however malformed, ends in
// a ttile::Error that says where and what was expected.
//
//===----------------------------------------------------------------------===//

#include "Scheme/SchemeParser.h"

#include "ttile/Error.h"

#include <cstdio>

namespace ttile::scheme {
namespace {

/// Counts beyond this are certainly typing mistakes, and rejecting them here
/// gives a clearer message than any later check could.
constexpr int64_t MaxCount = int64_t{1} << 30;

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentifierChar(char c) { return isIdentifierStart(c) || isDigit(c); }

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Scheme parse() {
    skipSpace();
    if (atEnd())
      throw Error("empty scheme", ErrorCode::InvalidScheme);
    Scheme scheme;
    while (true) {
      scheme.atoms.push_back(parseAtom());
      size_t afterAtom = pos_;
      skipSpace();
      if (atEnd())
        return scheme;
      if (pos_ == afterAtom)
        fail("expected whitespace or the end of the scheme after an atom");
    }
  }

private:
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipSpace() {
    while (!atEnd() && isSpace(text_[pos_]))
      ++pos_;
  }

  /// The token at the current position, as an error message quotes it: a
  /// whole word or number (with a sign, so that "-3" reads as such), else one
  /// character, with unprintable bytes escaped.
  std::string foundToken() const {
    if (atEnd())
      return "end of input";
    size_t end = pos_;
    if ((text_[end] == '-' || text_[end] == '+') && end + 1 < text_.size() &&
        isIdentifierChar(text_[end + 1]))
      ++end;
    while (end < text_.size() && isIdentifierChar(text_[end]))
      ++end;
    if (end == pos_)
      ++end;
    std::string token;
    for (char c : text_.substr(pos_, end - pos_)) {
      auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte >= 0x7f) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
        token += escaped;
      } else {
        token += c;
      }
    }
    return "'" + token + "'";
  }

  [[noreturn]] void fail(const std::string &expected) const {
    throw Error("column " + std::to_string(pos_ + 1) + ": " + expected +
                    ", found " + foundToken(),
                ErrorCode::InvalidScheme);
  }

  /// Consumes `c` after optional whitespace; `what` says which construct
  /// needed it, for the message.
  void expect(char c, const std::string &what) {
    skipSpace();
    if (peek() != c)
      fail("expected '" + std::string(1, c) + "' " + what);
    ++pos_;
  }

  /// Consumes `c` after optional whitespace if it is there.
  bool accept(char c) {
    skipSpace();
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }

  /// The identifier at the current position, or "" if there is none.
  std::string_view readIdentifier() {
    size_t start = pos_;
    if (isIdentifierStart(peek()))
      while (isIdentifierChar(peek()))
        ++pos_;
    return text_.substr(start, pos_ - start);
  }

  std::string parseIdentifier(const std::string &what) {
    skipSpace();
    std::string_view identifier = readIdentifier();
    if (identifier.empty())
      fail("expected " + what);
    return std::string(identifier);
  }

  int64_t parseCount(const std::string &what) {
    skipSpace();
    if (!isDigit(peek()))
      fail("expected " + what + " (a positive integer)");
    size_t start = pos_;
    if (peek() == '0') {
      // A canonical count has no leading zero, and zero is no count at all.
      ++pos_;
      bool leadingZero = isDigit(peek());
      pos_ = start;
      fail(what + (leadingZero ? " must not have leading zeros"
                               : " must be positive"));
    }
    int64_t value = 0;
    while (isDigit(peek())) {
      // Saturate instead of overflowing; the cap check below reports it.
      if (value <= MaxCount)
        value = value * 10 + (peek() - '0');
      ++pos_;
    }
    if (value > MaxCount) {
      pos_ = start;
      fail(what + " is too large (the limit is " + std::to_string(MaxCount) +
           ")");
    }
    return value;
  }

  /// "[" item ("," item)* "]", with `parseItem` reading one item.
  template <class ParseItem>
  void parseList(const std::string &what, ParseItem parseItem) {
    expect('[', "to open the list of " + what);
    do
      parseItem();
    while (accept(','));
    expect(']', "or ',' in the list of " + what);
  }

  Atom parseAtom() {
    size_t start = pos_;
    const std::string name(readIdentifier());
    if (name == "R" || name == "V") {
      expect('(', "after " + name);
      std::string dim = parseIdentifier("a dimension name in " + name);
      int64_t lanes = 0;
      if (name == "V" && accept(','))
        lanes = parseCount("the lanes of V");
      expect(')', "to close " + name);
      if (name == "R")
        return RAtom{dim};
      return VAtom{dim, static_cast<int>(lanes)};
    }
    if (name == "T" || name == "Tpar") {
      expect('(', "after " + name);
      int64_t count = parseCount("the count of " + name);
      expect(',', "after the count of " + name);
      std::string dim = parseIdentifier("a dimension name in " + name);
      expect(')', "to close " + name);
      if (name == "T")
        return TAtom{count, dim};
      return TparAtom{count, dim};
    }
    if (name == "U")
      return parseUnroll();
    if (name == "Lambda")
      return parseLambda();
    if (name == "Hoist") {
      HoistAtom hoist;
      expect('(', "after Hoist");
      do
        hoist.dims.push_back(parseIdentifier("a dimension name in Hoist"));
      while (accept(','));
      expect(')', "or ',' in Hoist");
      return hoist;
    }
    if (name == "Pack")
      return parsePack();
    if (name == "Tfused")
      return parseTfused();
    pos_ = start;
    fail("expected an atom (R, T, U, V, Lambda, Hoist, Pack, Tpar or Tfused)");
  }

  UAtom parseUnroll() {
    UAtom unroll;
    expect('(', "after U");
    skipSpace();
    size_t start = pos_;
    std::string_view word = readIdentifier();
    if (word == "lambda") {
      unroll.parametric = true;
    } else if (!word.empty()) {
      pos_ = start;
      fail("expected the count of U (a positive integer) or 'lambda'");
    } else {
      unroll.count = parseCount("the count of U");
    }
    expect(',', "after the count of U");
    unroll.dim = parseIdentifier("a dimension name in U");
    expect(')', "to close U");
    return unroll;
  }

  LambdaAtom parseLambda() {
    LambdaAtom lambda;
    expect('(', "after Lambda");
    lambda.dim = parseIdentifier("a dimension name in Lambda");
    expect(',', "after the dimension of Lambda");
    parseList("Lambda parts", [&] {
      expect('(', "to open a (repetitions, factor) part of Lambda");
      int64_t repetitions = parseCount("the repetitions of a Lambda part");
      expect(',', "after the repetitions of a Lambda part");
      int64_t factor = parseCount("the factor of a Lambda part");
      expect(')', "to close a Lambda part");
      lambda.parts.emplace_back(repetitions, factor);
      skipSpace();
      if (peek() == ']' && lambda.parts.size() < 2)
        fail("a Lambda needs at least two (repetitions, factor) parts");
    });
    expect(')', "to close Lambda");
    return lambda;
  }

  PackAtom parsePack() {
    PackAtom pack;
    expect('(', "after Pack");
    pack.tensor = parseIdentifier("a tensor name in Pack");
    if (accept(','))
      parseList("axes of Pack", [&] {
        pack.permutation.push_back(parseIdentifier("an axis name in Pack"));
      });
    expect(')', "to close Pack");
    return pack;
  }

  TfusedAtom parseTfused() {
    TfusedAtom fused;
    expect('(', "after Tfused");
    parseList("Tfused loops", [&] {
      expect('(', "to open a (dimension, count) loop of Tfused");
      std::string dim = parseIdentifier("a dimension name in Tfused");
      expect(',', "after the dimension of a Tfused loop");
      int64_t count = parseCount("the count of a Tfused loop");
      expect(')', "to close a Tfused loop");
      fused.loops.emplace_back(dim, count);
    });
    expect(')', "to close Tfused");
    return fused;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ",") + item;
  return text;
}

} // namespace

std::string atomName(const Atom &atom) {
  return std::visit(Overloaded{
                        [](const RAtom &) { return "R"; },
                        [](const TAtom &) { return "T"; },
                        [](const UAtom &) { return "U"; },
                        [](const VAtom &) { return "V"; },
                        [](const LambdaAtom &) { return "Lambda"; },
                        [](const HoistAtom &) { return "Hoist"; },
                        [](const PackAtom &) { return "Pack"; },
                        [](const TparAtom &) { return "Tpar"; },
                        [](const TfusedAtom &) { return "Tfused"; },
                    },
                    atom);
}

std::string printAtom(const Atom &atom) {
  std::string arguments = std::visit(
      Overloaded{
          [](const RAtom &a) { return a.dim; },
          [](const TAtom &a) { return std::to_string(a.count) + "," + a.dim; },
          [](const UAtom &a) {
            return (a.parametric ? "lambda" : std::to_string(a.count)) + "," +
                   a.dim;
          },
          [](const VAtom &a) {
            return a.lanes ? a.dim + "," + std::to_string(a.lanes) : a.dim;
          },
          [](const LambdaAtom &a) {
            std::vector<std::string> parts;
            for (const auto &[repetitions, factor] : a.parts)
              parts.push_back("(" + std::to_string(repetitions) + "," +
                              std::to_string(factor) + ")");
            return a.dim + ",[" + joined(parts) + "]";
          },
          [](const HoistAtom &a) { return joined(a.dims); },
          [](const PackAtom &a) {
            if (a.permutation.empty())
              return a.tensor;
            return a.tensor + ",[" + joined(a.permutation) + "]";
          },
          [](const TparAtom &a) {
            return std::to_string(a.count) + "," + a.dim;
          },
          [](const TfusedAtom &a) {
            std::vector<std::string> loops;
            for (const auto &[dim, count] : a.loops)
              loops.push_back("(" + dim + "," + std::to_string(count) + ")");
            return "[" + joined(loops) + "]";
          },
      },
      atom);
  return atomName(atom) + "(" + arguments + ")";
}

Scheme parseScheme(std::string_view text) { return Parser(text).parse(); }

std::string printScheme(const Scheme &scheme) {
  std::string text;
  for (const Atom &atom : scheme.atoms)
    text += (text.empty() ? "" : " ") + printAtom(atom);
  return text;
}

} // namespace ttile::scheme
