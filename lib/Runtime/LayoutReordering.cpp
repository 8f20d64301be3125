//===- Runtime/LayoutReordering.cpp - Orders that vectorize ---------------===//

#include "Runtime/LayoutReordering.h"

#include "Cache/ChoiceCache.h"
#include "Search/FamilyBinding.h"
#include "Search/Tuner.h"
#include "Support/Logging.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace ttile::runtime {
namespace {

/// The candidates find() weighs beyond the terms as laid out: all of them
/// for an einsum of up to 16 letters of size 2 or more. The model's
/// estimate of one takes a few milliseconds (20 for 25 letters, on Zen 5),
/// so that even an einsum of 50 letters is planned in a fraction of a
/// second.
constexpr size_t kMaxCandidates = 16;

/// The candidates of LayoutReordering.h for `terms`, those as laid out
/// first, each once, at most kMaxCandidates more: the one that moves the
/// output's last letter, which always has a kernel (the lanewise family's:
/// it ends every tensor then), then the others, their letters largest
/// first (more lanes busy, longer runs to copy). Letters of size 1 are left
/// where they are but for that first one: no element moves with them, and
/// a vector along one has one lane.
std::vector<EinsumTerms> candidatesOf(const EinsumTerms &terms,
                                      const std::map<char, int64_t> &sizes) {
  std::vector<EinsumTerms> candidates{terms};
  auto add = [&](const EinsumTerms &candidate) {
    if (candidates.size() <= kMaxCandidates &&
        std::none_of(candidates.begin(), candidates.end(),
                     [&](const EinsumTerms &known) {
                       return known.str() == candidate.str();
                     }))
      candidates.push_back(candidate);
  };
  const std::string &a = terms.operands[0], &b = terms.operands[1];
  std::string letters;
  for (char letter : a + b)
    if (!holdsLetter(letters, letter))
      letters += letter;
  const std::string appearance = letters;
  std::sort(letters.begin(), letters.end(), [&](char x, char y) {
    return std::pair(-sizes.at(x), appearance.find(x)) <
           std::pair(-sizes.at(y), appearance.find(y));
  });
  if (!terms.output.empty()) {
    const char last = terms.output.back();
    letters.erase(letters.find(last), 1);
    letters.insert(0, 1, last);
  }
  for (char letter : letters) {
    const bool first = letter == letters.front();
    if (holdsLetter(a, letter) && holdsLetter(b, letter)) {
      if (sizes.at(letter) == 1 && !first)
        continue;
      EinsumTerms lastEverywhere = terms;
      for (std::string &operand : lastEverywhere.operands)
        operand = withLetterLast(operand, letter);
      lastEverywhere.output = withLetterLast(terms.output, letter);
      add(lastEverywhere);
    } else if (holdsLetter(terms.output, letter) && sizes.at(letter) > 1) {
      EinsumTerms lastInOutput = terms;
      lastInOutput.output = withLetterLast(terms.output, letter);
      add(lastInOutput);
    }
  }
  return candidates;
}

/// The key find() keeps its choice under (Cache/ChoiceCache.h): the
/// question, and what the model's answer depends on beyond the environment.
cache::CacheKey choiceKey(const EinsumTerms &terms,
                          const std::map<char, int64_t> &sizes,
                          bool constantB) {
  cache::CacheKey key;
  key.add("choice", "contraction layout");
  key.add("einsum", terms.str());
  for (auto [letter, size] : sizes)
    key.add(std::string(1, letter), size);
  key.add("weights", constantB ? "constant" : "per-run");
  key.add("threads", workerCount());
  return key;
}

} // namespace

LayoutReordering::LayoutReordering(const EinsumTerms &terms,
                                   const EinsumTerms &kernelTerms,
                                   const std::map<char, int64_t> &sizes)
    : terms_(kernelTerms) {
  for (int operand : {0, 1})
    orders_.setOperand(operand,
                       LetterPermutation(terms.operands[operand],
                                         kernelTerms.operands[operand], sizes));
  orders_.setOutput(LetterPermutation(kernelTerms.output, terms.output, sizes));
}

std::optional<LayoutReordering>
LayoutReordering::find(const EinsumTerms &terms,
                       const std::map<char, int64_t> &sizes, bool constantB,
                       const KernelSpecOf &kernelSpecOf) {
  const std::vector<EinsumTerms> candidates = candidatesOf(terms, sizes);
  auto chosen = [&](const EinsumTerms &candidate) {
    return candidate.str() == terms.str()
               ? std::nullopt
               : std::optional(LayoutReordering(terms, candidate, sizes));
  };
  const cache::ChoiceCache choices;
  const cache::CacheKey key = choiceKey(terms, sizes, constantB);
  const std::string question = "contraction \"" + terms.str() + "\"";
  if (const EinsumTerms *candidate = choices.find(
          key, candidates, [](const EinsumTerms &c) { return c.str(); },
          question)) {
    try {
      kernelSpecOf(*candidate, sizes);
      return chosen(*candidate);
    } catch (const Error &) {
      cache::ChoiceCache::logChoiceIgnored(question, candidate->str());
    }
  }

  const EinsumTerms *best = nullptr;
  double bestCycles = 0;
  bool bestOneLane = false;
  for (const EinsumTerms &candidate : candidates) {
    double cycles = 0;
    bool oneLane = false;
    try {
      const spec::Spec kernel = kernelSpecOf(candidate, sizes);
      oneLane = hasOneLaneVector(kernel);
      cycles =
          search::modelCycles(kernel) +
          static_cast<double>(LayoutReordering(terms, candidate, sizes)
                                  .orders_.elementsCopiedPerRun(constantB));
    } catch (const Error &error) {
      log().debug("contraction \"{}\": {} refused: {}", terms.str(),
                  candidate.str(), error.what());
      continue;
    }
    log().debug("contraction \"{}\": {}, {:.4g} cycles with the copies{}",
                terms.str(), candidate.str(), cycles,
                oneLane ? ", a vector of one lane" : "");
    if (!best ||
        std::pair(oneLane, cycles) < std::pair(bestOneLane, bestCycles)) {
      best = &candidate;
      bestCycles = cycles;
      bestOneLane = oneLane;
    }
  }
  if (!best)
    return std::nullopt;
  choices.store(key, best->str());
  return chosen(*best);
}

bool LayoutReordering::hasOneLaneVector(const spec::Spec &kernel) {
  return kernel.dims[kernel.dimId(search::familyOf(kernel).vectorDim)].size ==
         1;
}

std::string LayoutReordering::str() const {
  std::string text;
  for (int operand : {0, 1})
    if (orders_.copiesOperand(operand))
      text += fmt::format("{}{} read as {}", text.empty() ? "" : ", ",
                          operand == 0 ? "A" : "B", terms_.operands[operand]);
  if (orders_.copiesOutput())
    text += fmt::format("{}C written as {}", text.empty() ? "" : ", ",
                        terms_.output);
  return text.empty() ? "letters of size 1 moved" : text;
}

} // namespace ttile::runtime
