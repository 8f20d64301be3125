//===- Runtime/ChainPlan.cpp - The order of a three-operand einsum --------===//

#include "Runtime/ChainPlan.h"

#include "Cache/ChoiceCache.h"
#include "Runtime/ContractionProblem.h"
#include "Search/Tuner.h"
#include "Support/Logging.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ttile::runtime {
namespace {

/// The layouts of the intermediate tried for the pair (x, y), whose
/// letters are `kept`: in the order of the output, then of the third
/// operand `z`; of z, then the output; of the pair, either way round. Where
/// a layout ends on a letter of both x and y (which the first step
/// vectorizes only through a reordered copy unless it ends both), the last
/// letter of only one of them moves to its end. Where x and y end in the same
/// kept letter, each order is also tried with that letter last: the first step
/// then runs lanewise, each vector lane a product of its own (a batch innermost
/// everywhere, "ikb,kjb,jlb->ilb").
std::vector<std::string>
intermediateLayouts(std::string_view x, std::string_view y, std::string_view z,
                    std::string_view output, std::string_view kept) {
  auto inOne = [&](char letter) {
    return holdsLetter(x, letter) != holdsLetter(y, letter);
  };
  const bool sharedLast = x.back() == y.back() && holdsLetter(kept, x.back());
  std::vector<std::string> layouts;
  auto add = [&](const std::string &layout) {
    if (std::find(layouts.begin(), layouts.end(), layout) == layouts.end())
      layouts.push_back(layout);
  };
  for (auto terms : {std::initializer_list<std::string_view>{output, z, x, y},
                     {z, output, x, y},
                     {x, y},
                     {y, x}}) {
    std::string layout;
    for (std::string_view term : terms)
      for (char letter : term)
        if (holdsLetter(kept, letter) && !holdsLetter(layout, letter))
          layout += letter;
    if (sharedLast)
      add(withLetterLast(layout, x.back()));
    if (!layout.empty() && !inOne(layout.back())) {
      auto last = std::find_if(layout.rbegin(), layout.rend(), inOne);
      if (last != layout.rend())
        layout = withLetterLast(layout, *last);
    }
    add(layout);
  }
  return layouts;
}

/// The sizes of the letters of `einsum` alone.
std::map<char, int64_t> sizesOf(std::string_view einsum,
                                const std::map<char, int64_t> &sizes) {
  std::map<char, int64_t> used;
  for (auto [letter, size] : sizes)
    if (holdsLetter(einsum, letter))
      used.emplace(letter, size);
  return used;
}

/// Every plan planChain() weighs, in order: for each pair of the operands,
/// each layout of its intermediate; their steps set, nothing checked yet.
std::vector<ChainPlan> candidatePlans(const EinsumTerms &terms,
                                      const std::map<char, int64_t> &sizes) {
  std::vector<ChainPlan> plans;
  for (auto [first, second] : {std::pair{0, 1}, {0, 2}, {1, 2}}) {
    const int third = 3 - first - second;
    const std::string &x = terms.operands[first];
    const std::string &y = terms.operands[second];
    const std::string &z = terms.operands[third];
    std::string kept;
    for (char letter : x + y)
      if ((holdsLetter(z, letter) || holdsLetter(terms.output, letter)) &&
          !holdsLetter(kept, letter))
        kept += letter;
    for (const std::string &layout :
         intermediateLayouts(x, y, z, terms.output, kept)) {
      ChainPlan &plan = plans.emplace_back();
      const std::string pair = x + "," + y + "->" + layout;
      plan.steps[0] = {{pair, sizesOf(pair, sizes)}, {first, second}};
      // The intermediate takes the place of the pair's first operand.
      const bool intermediateFirst = first < third;
      const std::string rest =
          (intermediateFirst ? layout + "," + z : z + "," + layout) + "->" +
          terms.output;
      plan.steps[1] = {{rest, sizesOf(rest, sizes)},
                       intermediateFirst
                           ? std::array{ChainStep::kIntermediate, third}
                           : std::array{third, ChainStep::kIntermediate}};
    }
  }
  return plans;
}

/// Completes `plan` from its steps' problems. `priced`: returns what the
/// model expects its two steps to take (0 otherwise): search::modelCycles
/// of each, and a cycle for each element a step copies (a step whose kernel
/// reads or writes a tensor in another order copies it at every run).
/// Throws ttile::Error where a step is no contraction ttile computes.
double completePlan(ChainPlan &plan, bool priced) {
  const ContractionProblem pairProblem(plan.steps[0].params);
  const ContractionProblem restProblem(plan.steps[1].params);
  plan.intermediateElements = pairProblem.cElements();
  plan.reordersToVectorize =
      pairProblem.reordersToVectorize() || restProblem.reordersToVectorize();
  if (!priced)
    return 0;
  return search::modelCycles(pairProblem.spec()) +
         search::modelCycles(restProblem.spec()) +
         static_cast<double>(pairProblem.orders().elementsCopiedPerRun(false) +
                             restProblem.orders().elementsCopiedPerRun(false));
}

/// The key planChain() keeps its choice under (Cache/ChoiceCache.h).
cache::CacheKey choiceKey(const ContractionChainParams &params) {
  cache::CacheKey key;
  key.add("choice", "contraction chain");
  key.add("einsum", params.einsum);
  for (auto [letter, size] : params.sizes)
    key.add(std::string(1, letter), size);
  key.add("threads", workerCount());
  return key;
}

} // namespace

std::string ChainPlan::str() const {
  return steps[0].params.einsum + "; " + steps[1].params.einsum;
}

ChainPlan planChain(const ContractionChainParams &params) {
  const std::string &einsum = params.einsum;
  auto fail = [&](const std::string &message) {
    throw Error(fmt::format("contraction chain \"{}\": {}", einsum, message));
  };
  const EinsumTerms terms(
      checkedEinsum("contraction chain", einsum, params.sizes));
  if (terms.operands.size() != 3)
    fail(fmt::format("has {} operand{}; a ContractionChain takes three (a "
                     "Contraction two)",
                     terms.operands.size(),
                     terms.operands.size() == 1 ? "" : "s"));
  std::vector<ChainPlan> plans = candidatePlans(terms, params.sizes);

  const cache::ChoiceCache choices;
  const cache::CacheKey key = choiceKey(params);
  const std::string question = "contraction chain \"" + einsum + "\"";
  if (ChainPlan *plan = choices.find(
          key, plans, [](const ChainPlan &p) { return p.str(); }, question)) {
    try {
      completePlan(*plan, /*priced=*/false);
      return std::move(*plan);
    } catch (const Error &) {
      cache::ChoiceCache::logChoiceIgnored(question, plan->str());
    }
  }

  ChainPlan *best = nullptr;
  double bestCycles = 0;
  std::vector<std::string> refusals;
  for (ChainPlan &plan : plans) {
    double cycles = 0;
    try {
      cycles = completePlan(plan, /*priced=*/true);
    } catch (const Error &error) {
      std::string refusal = fmt::format("{}: {}", plan.str(), error.what());
      if (std::find(refusals.begin(), refusals.end(), refusal) ==
          refusals.end())
        refusals.push_back(std::move(refusal));
      log().debug("contraction chain \"{}\": {} refused: {}", einsum,
                  plan.str(), error.what());
      continue;
    }
    log().debug("contraction chain \"{}\": {}, {:.4g} cycles by the model",
                einsum, plan.str(), cycles);
    if (!best || std::pair(plan.reordersToVectorize, cycles) <
                     std::pair(best->reordersToVectorize, bestCycles)) {
      best = &plan;
      bestCycles = cycles;
    }
  }
  if (!best) {
    std::string reasons;
    for (const std::string &refusal : refusals)
      reasons += (reasons.empty() ? "" : "; ") + refusal;
    fail("no order of it is two contractions ttile computes (" + reasons + ")");
  }
  choices.store(key, best->str());
  return std::move(*best);
}

} // namespace ttile::runtime
