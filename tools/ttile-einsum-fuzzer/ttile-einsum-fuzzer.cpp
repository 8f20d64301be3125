//===- ttile-einsum-fuzzer.cpp - Fuzz the einsum and sizes strings --------===//
//
// The C API takes a contraction as two strings from the caller, an einsum
// ("abc,cd->abd") and the sizes of its letters ("a:8,b:12,c:16,d:16"), and
// two hand-written parsers read them. The first input byte chooses
// ttile_contraction_create (with or without constantB) or
// ttile_contraction_chain_create, which plans the chain's order with the
// data-movement model; the rest is the einsum, a newline, and the sizes.
// Nothing is compiled or run. For any input:
//
//   - the call returns TTILE_OK or TTILE_INVALID_ARGUMENT, never another
//     status, a crash, a sanitizer report or an oversized allocation;
//   - a refusal leaves *out null and its message names what it refuses
//     (the contraction, the chain or the sizes, with the string);
//   - an acceptance holds what ttile.h promises, recomputed here by
//     parsers of this file's own, in 128-bit arithmetic: two operands (the
//     chain: three) of distinct letters each, every output letter in an
//     operand (the output may have none: a scalar), a size of 1 to 2^31
//     for every letter and no other, no tensor over 2^40 elements, at most
//     2^61 multiply-adds, and the element and FLOP counts the handle
//     reports;
//   - and, the converse for a contraction, every einsum that holds them is
//     accepted, but one whose letters leave none for the index of size 1
//     its microkernels may need.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"
#include "ttile/ttile.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace ttile::fuzz;
/// `text` without its white space: where the parsers accept a string, they
/// ignore white space between its tokens.
std::string withoutSpaces(std::string_view text) {
  std::string compact;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      compact += c;
  return compact;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text)
    if (c == separator)
      parts.emplace_back();
    else
      parts.back() += c;
  return parts;
}

struct Einsum {
  std::vector<std::string> operands;
  std::string output;
};

/// Terms of distinct letters, separated by ',' and one "->" (its two
/// characters adjacent), white space elsewhere ignored, as
/// spec::contraction reads them; none when the string is not one.
std::optional<Einsum> parseEinsum(std::string_view text) {
  const size_t arrow = text.find("->");
  if (arrow == std::string_view::npos)
    return std::nullopt;
  Einsum einsum{split(withoutSpaces(text.substr(0, arrow)), ','),
                withoutSpaces(text.substr(arrow + 2))};
  std::vector<std::string> terms = einsum.operands;
  terms.push_back(einsum.output);
  for (const std::string &term : terms) {
    if (term.empty() && &term != &terms.back()) // The output may be a scalar.
      return std::nullopt;
    for (size_t i = 0; i < term.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(term[i])) ||
          term.find(term[i], i + 1) != std::string::npos)
        return std::nullopt;
  }
  return einsum;
}

/// LETTER:DIGITS parts separated by ',', each letter once, white space
/// allowed around the letter, the ':' and the digits, as
/// ttile_contraction_create reads them; none otherwise.
std::optional<std::map<char, Wide>> parseSizes(std::string_view text) {
  auto isSpace = [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  };
  std::map<char, Wide> sizes;
  for (const std::string &part : split(std::string(text), ',')) {
    size_t at = 0;
    auto skipSpaces = [&] {
      while (at < part.size() && isSpace(part[at]))
        ++at;
    };
    skipSpaces();
    if (at == part.size() ||
        !std::isalpha(static_cast<unsigned char>(part[at])))
      return std::nullopt;
    const char letter = part[at++];
    skipSpaces();
    if (at == part.size() || part[at] != ':')
      return std::nullopt;
    ++at;
    skipSpaces();
    const size_t digits = at;
    Wide size = 0;
    for (;
         at < part.size() && std::isdigit(static_cast<unsigned char>(part[at]));
         ++at)
      size = std::min(size * 10 + (part[at] - '0'), Wide(kLargestField) + 1);
    skipSpaces();
    if (at == digits || at != part.size() ||
        !sizes.emplace(letter, size).second)
      return std::nullopt;
  }
  return sizes;
}

Wide elements(const std::string &letters, const std::map<char, Wide> &sizes) {
  Wide product = 1;
  for (char letter : letters)
    product *= sizes.at(letter);
  return product;
}

/// What every accepted einsum with `operandCount` operands must hold; the
/// sizes are set for its letters when it does.
const char *brokenEinsumPromise(std::string_view einsumText,
                                std::string_view sizesText, size_t operandCount,
                                Einsum &einsum, std::map<char, Wide> &sizes) {
  std::optional<Einsum> parsedEinsum = parseEinsum(einsumText);
  if (!parsedEinsum)
    return "a malformed einsum was accepted";
  einsum = *parsedEinsum;
  if (einsum.operands.size() != operandCount)
    return "an einsum with another number of operands was accepted";
  std::string letters;
  for (const std::string &operand : einsum.operands)
    letters += operand;
  for (char letter : einsum.output)
    if (letters.find(letter) == std::string::npos)
      return "an output letter in no operand was accepted";
  std::optional<std::map<char, Wide>> parsedSizes = parseSizes(sizesText);
  if (!parsedSizes)
    return "malformed sizes were accepted";
  sizes = *parsedSizes;
  for (auto [letter, size] : sizes) {
    if (letters.find(letter) == std::string::npos)
      return "a size for no letter of the einsum was accepted";
    if (size < 1 || size > kLargestField)
      return "a size out of range was accepted";
  }
  for (char letter : letters)
    if (!sizes.contains(letter))
      return "a letter without a size was accepted";
  Wide multiplyAdds = 1;
  for (auto [letter, size] : sizes)
    multiplyAdds *= size; // At most 52 factors of 2^31: no overflow.
  if (multiplyAdds > kMostMultiplyAdds)
    return "more than 2^61 multiply-adds were accepted";
  std::vector<std::string> tensors = einsum.operands;
  tensors.push_back(einsum.output);
  for (const std::string &tensor : tensors)
    if (elements(tensor, sizes) > kLargestTensor)
      return "a tensor over 2^40 elements was accepted";
  return nullptr;
}

const char *brokenContractionPromise(std::string_view einsumText,
                                     std::string_view sizesText,
                                     const ttile_contraction *contraction) {
  Einsum einsum;
  std::map<char, Wide> sizes;
  if (const char *broken =
          brokenEinsumPromise(einsumText, sizesText, 2, einsum, sizes))
    return broken;
  Wide multiplyAdds = 1;
  for (auto [letter, size] : sizes)
    multiplyAdds *= size;
  if (ttile_contraction_flops(contraction) != 2 * multiplyAdds)
    return "flops() is not twice the product of the sizes";
  if (ttile_contraction_a_elements(contraction) !=
          elements(einsum.operands[0], sizes) ||
      ttile_contraction_b_elements(contraction) !=
          elements(einsum.operands[1], sizes) ||
      ttile_contraction_c_elements(contraction) !=
          elements(einsum.output, sizes))
    return "an element count differs from the product of its letters' sizes";
  return nullptr;
}

const char *brokenChainPromise(std::string_view einsumText,
                               std::string_view sizesText,
                               ttile_contraction_chain *chain) {
  Einsum einsum;
  std::map<char, Wide> sizes;
  if (const char *broken =
          brokenEinsumPromise(einsumText, sizesText, 3, einsum, sizes))
    return broken;
  for (int operand = 0; operand < 3; ++operand)
    if (ttile_contraction_chain_operand_elements(chain, operand) !=
        elements(einsum.operands[operand], sizes))
      return "an operand's element count differs from its letters' sizes";
  if (ttile_contraction_chain_output_elements(chain) !=
      elements(einsum.output, sizes))
    return "the output's element count differs from its letters' sizes";
  // Two steps, each a contraction of two operands.
  const std::vector<std::string> steps =
      split(ttile_contraction_chain_plan(chain), ';');
  if (steps.size() != 2)
    return "the plan is not two steps";
  for (const std::string &step : steps) {
    std::optional<Einsum> parsed = parseEinsum(step);
    if (!parsed || parsed->operands.size() != 2)
      return "a step of the plan is no contraction of two operands";
  }
  return nullptr;
}

std::string describe(std::string_view function, std::string_view einsum,
                     std::string_view sizes) {
  auto quoted = [](std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text)
      if (std::isprint(c) && c != '"' && c != '\\')
        out += static_cast<char>(c);
      else {
        constexpr std::string_view kHex = "0123456789abcdef";
        out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      }
    return out + "\"";
  };
  return std::string(function) + "(" + quoted(einsum) + ", " + quoted(sizes) +
         ")";
}

} // namespace

// The parsers are the subject, not the cache: since 0.22.2 a contraction
// that reorders a tensor, and a chain, store the model's choice in the
// cache (ttile-record-fuzzer covers reading records). Off, a run writes
// none into the user's cache directory, and no input's outcome depends on
// an earlier one's.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  ::setenv("TTILE_CACHE", "off", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  Reader input(bytes, size);
  const uint8_t mode = input.byte();
  const std::string_view rest(reinterpret_cast<const char *>(bytes) +
                                  (size ? 1 : 0),
                              size ? size - 1 : 0);
  // Each string ends where C would end it: at its first NUL.
  const size_t newline = rest.find('\n');
  const std::string einsum(std::string(rest.substr(0, newline)).c_str());
  const std::string sizes(newline == std::string_view::npos
                              ? ""
                              : std::string(rest.substr(newline + 1)).c_str());
  const bool chain = mode & 1;
  const bool constantB = mode & 2;
  // Not null before the call, so that a failure must clear it.
  uint8_t notNull = 0;

  if (chain) {
    ttile_contraction_chain *handle =
        reinterpret_cast<ttile_contraction_chain *>(&notNull);
    ttile_status status =
        ttile_contraction_chain_create(einsum.c_str(), sizes.c_str(), &handle);
    checkCreation(
        "contraction chain", status, handle,
        describe("ttile_contraction_chain_create", einsum, sizes),
        [&](ttile_contraction_chain *made) {
          return brokenChainPromise(einsum, sizes, made);
        },
        [](std::string_view message) {
          return namesItsSubject(message, "ttile_contraction_chain_create",
                                 {"contraction chain \"", "contraction \"",
                                  "sizes \"", "sizes['"});
        },
        ttile_contraction_chain_destroy);
    return 0;
  }
  ttile_contraction *handle = reinterpret_cast<ttile_contraction *>(&notNull);
  ttile_status status = ttile_contraction_create(einsum.c_str(), sizes.c_str(),
                                                 constantB, &handle);
  Einsum parsed;
  std::map<char, Wide> parsedSizes;
  if (status != TTILE_OK &&
      !brokenEinsumPromise(einsum, sizes, 2, parsed, parsedSizes) &&
      std::string_view(ttile_last_error()).find("uses all 52 letters") ==
          std::string_view::npos)
    fail("contraction", "a well-formed einsum within bounds was refused",
         std::string(ttile_last_error()) + " for " +
             describe("ttile_contraction_create", einsum, sizes));
  checkCreation(
      "contraction", status, handle,
      describe("ttile_contraction_create", einsum, sizes) +
          (constantB ? " constantB" : ""),
      [&](ttile_contraction *made) {
        return brokenContractionPromise(einsum, sizes, made);
      },
      [](std::string_view message) {
        return namesItsSubject(message, "ttile_contraction_create",
                               {"contraction \"", "sizes \"", "sizes['"});
      },
      ttile_contraction_destroy);
  return 0;
}
