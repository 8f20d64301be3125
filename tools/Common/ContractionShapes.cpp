//===- tools/Common/ContractionShapes.cpp - The contraction benchmarks ----===//

#include "ContractionShapes.h"

#include "Runtime/ContractionProblem.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ttile::tools {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// The three index lists of a TCCG notation: C, A, B.
std::vector<std::string> tccgTensors(std::string_view notation) {
  std::vector<std::string> tensors(1);
  for (char c : notation) {
    if (c == '-')
      tensors.emplace_back();
    else if (std::isalpha(static_cast<unsigned char>(c)))
      tensors.back() += c;
    else
      tensors.clear();
    if (tensors.empty())
      break;
  }
  if (tensors.size() != 3 ||
      std::any_of(tensors.begin(), tensors.end(),
                  [](const std::string &t) { return t.empty(); }))
    throw Error("'" + std::string(notation) +
                "' is no TCCG contraction: three index lists C-A-B, as in "
                "abcd-aebf-dfce");
  return tensors;
}

std::vector<NamedContraction> tccgSet(double tensorBytes) {
  std::vector<NamedContraction> set;
  for (const TccgCase &tccg : tccgCases())
    set.push_back({"tccg" + std::to_string(tccg.id),
                   {tccgToEinsum(tccg.notation),
                    tccgSizes(tccg, tensorBytes, sizeof(float))},
                   tccg.id});
  return set;
}

} // namespace

const std::vector<TccgCase> &tccgCases() {
  static const std::vector<TccgCase> cases = {
    {1, "intensli", "abc-bda-dc", "c", "a:312,b:312,c:24,d:312"},
    {2, "intensli", "abc-dca-bd", "b", "a:312,b:24,c:296,d:312"},
    {3, "intensli", "abcd-dbea-ec", "c", "a:72,b:72,c:24,d:72,e:72"},
    {4, "intensli", "abcd-deca-be", "b", "a:72,b:24,c:72,d:72,e:72"},
    {5, "intensli", "abcd-ebad-ce", "c", "a:72,b:72,c:24,d:72,e:72"},
    {6, "intensli", "abcde-efbad-cf", "c", "a:48,b:32,c:24,d:32,e:48,f:32"},
    {7, "intensli", "abcde-ecbfa-fd", "d", "a:48,b:32,c:32,d:24,e:48,f:48"},
    {8, "intensli", "abcde-efcad-bf", "b", "a:48,b:24,c:32,d:32,e:48,f:32"},
    {9, "ao2mo", "abcd-ea-ebcd", "", "a:72,b:72,c:72,d:72,e:72"},
    {10, "ao2mo", "abcd-eb-aecd", "", "a:72,b:72,c:72,d:72,e:72"},
    {11, "ao2mo", "abcd-ec-abed", "", "a:72,b:72,c:72,d:72,e:72"},
    {12, "ccsd", "ab-ac-cb", "", "a:5136,b:5120,c:5136"},
    {13, "ccsd", "ab-acd-dbc", "", "a:312,b:296,c:296,d:312"},
    {14, "ccsd", "ab-cad-dcb", "", "a:312,b:296,c:312,d:312"},
    {15, "ccsd", "abc-acd-db", "", "a:312,b:296,c:296,d:312"},
    {16, "ccsd", "abc-ad-bdc", "", "a:312,b:312,c:296,d:296"},
    {17, "ccsd", "abc-adc-bd", "", "a:312,b:312,c:296,d:296"},
    {18, "ccsd", "abc-adc-db", "", "a:312,b:296,c:296,d:312"},
    {19, "ccsd", "abc-adec-ebd", "", "a:72,b:72,c:72,d:72,e:72"},
    {20, "ccsd", "abcd-aebf-dfce", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {21, "ccsd", "abcd-aebf-fdec", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {22, "ccsd", "abcd-aecf-bfde", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {23, "ccsd", "abcd-aecf-fbed", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {24, "ccsd", "abcd-aedf-bfce", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {25, "ccsd", "abcd-aedf-fbec", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {26, "ccsd", "abcd-aefb-fdce", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {27, "ccsd", "abcd-aefc-fbed", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {28, "ccsd", "abcd-eafb-fdec", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {29, "ccsd", "abcd-eafc-bfde", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {30, "ccsd", "abcd-eafd-fbec", "", "a:72,b:72,c:72,d:72,e:72,f:72"},
    {31, "ccsd_t", "abcdef-dega-gfbc", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {32, "ccsd_t", "abcdef-degb-gfac", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {33, "ccsd_t", "abcdef-degc-gfab", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {34, "ccsd_t", "abcdef-dfga-gebc", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {35, "ccsd_t", "abcdef-dfgb-geac", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {36, "ccsd_t", "abcdef-dfgc-geab", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {37, "ccsd_t", "abcdef-efga-gdbc", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {38, "ccsd_t", "abcdef-efgb-gdac", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {39, "ccsd_t", "abcdef-efgc-gdab", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {40, "ccsd_t", "abcdef-gdab-efgc", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {41, "ccsd_t", "abcdef-gdac-efgb", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {42, "ccsd_t", "abcdef-gdbc-efga", "", "a:24,b:16,c:16,d:16,e:24,f:16,g:24"},
    {43, "ccsd_t", "abcdef-geab-dfgc", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {44, "ccsd_t", "abcdef-geac-dfgb", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {45, "ccsd_t", "abcdef-gebc-dfga", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {46, "ccsd_t", "abcdef-gfab-degc", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {47, "ccsd_t", "abcdef-gfac-degb", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
    {48, "ccsd_t", "abcdef-gfbc-dega", "", "a:24,b:16,c:16,d:24,e:16,f:16,g:24"},
  };
  return cases;
}

std::map<char, int64_t> tccgSizes(const TccgCase &tccg, double tensorBytes,
                                  int elementBytes) {
  const std::vector<std::string> tensors = tccgTensors(tccg.notation);
  size_t mostIndices = 0;
  for (const std::string &tensor : tensors)
    mostIndices = std::max(mostIndices, tensor.size());
  const double average =
      std::pow(tensorBytes / elementBytes, 1.0 / double(mostIndices));
  std::map<char, int64_t> sizes;
  for (const std::string &tensor : tensors)
    for (char index : tensor) {
      if (std::string_view(tccg.fixed).find(index) != std::string_view::npos) {
        sizes[index] = 24;
      } else if (index == tensors[0][0] || index == tensors[1][0] ||
                 index == tensors[2][0]) {
        sizes[index] = int64_t((average + 23) / 24) * 24;
      } else {
        const int64_t up = int64_t((average + 3) / 4) * 4;
        const int64_t down = std::max<int64_t>(4, int64_t(average / 4) * 4);
        sizes[index] =
            std::abs(average - double(up)) < std::abs(average - double(down))
                ? up
                : down;
      }
    }
  return sizes;
}

std::string tccgToEinsum(std::string_view notation) {
  std::vector<std::string> tensors = tccgTensors(notation);
  for (std::string &tensor : tensors)
    std::reverse(tensor.begin(), tensor.end());
  return tensors[1] + "," + tensors[2] + "->" + tensors[0];
}

const std::vector<std::string> &contractionSetNames() {
  static const std::vector<std::string> names = {"tccg", "tccg-small",
                                                 "extra"};
  return names;
}

std::vector<NamedContraction> contractionSet(std::string_view set) {
  if (set == "tccg")
    return tccgSet(200 * kMiB);
  if (set == "tccg-small")
    return tccgSet(50 * kMiB);
  if (set == "extra")
    return {{"doitgen-large",
             {"rqs,sp->rqp", {{'r', 150}, {'q', 140}, {'s', 160}, {'p', 160}}}}};
  std::string names;
  for (const std::string &name : contractionSetNames())
    names += (names.empty() ? "" : ", ") + name;
  throw Error("unknown contraction set '" + std::string(set) + "' (sets: " +
              names + ")");
}

NamedContraction parseContraction(std::string_view notation,
                                  std::string_view sizes) {
  const bool einsum = notation.find("->") != std::string_view::npos;
  return {std::string(notation),
          {einsum ? std::string(notation) : tccgToEinsum(notation),
           runtime::parseContractionSizes(sizes)}};
}

bool isChain(const ContractionParams &params) {
  try {
    return einsumTerms(params.einsum).size() == 4;
  } catch (const Error &) {
    return false;
  }
}

ContractionChainParams chainParams(const ContractionParams &params) {
  return {params.einsum, params.sizes};
}

} // namespace ttile::tools
