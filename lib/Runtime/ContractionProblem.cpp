//===- Runtime/ContractionProblem.cpp - A validated contraction -----------===//

#include "Runtime/ContractionProblem.h"

#include "Runtime/LayoutReordering.h"
#include "Runtime/ProblemChecks.h"
#include "Runtime/VectorIndexFusion.h"
#include "Search/ContractionRoles.h"
#include "Search/FamilyBinding.h"
#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <cctype>
#include <charconv>
#include <optional>

namespace ttile::runtime {
namespace {

/// The first letter that is no index of `spec`, if any.
std::optional<char> unusedLetter(const spec::Spec &spec) {
  for (std::string_view letters :
       {"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
    for (char letter : letters)
      if (!spec.findDim(std::string_view(&letter, 1)))
        return letter;
  return std::nullopt;
}

/// unusedLetter() for the index of size 1 that the microkernels need.
char freeLetter(const spec::Spec &spec, std::string_view einsum) {
  if (std::optional<char> letter = unusedLetter(spec))
    return *letter;
  throw Error(fmt::format("contraction \"{}\": uses all 52 letters, and "
                          "leaves none for the index of size 1 its "
                          "microkernels need",
                          einsum));
}

/// The product of the sizes of `tensor`'s axes; Spec::verify has bounded
/// it by 2^40.
int64_t elementsOf(const spec::Tensor &tensor) {
  int64_t elements = 1;
  for (const spec::TensorAxis &axis : tensor.axes)
    elements *= axis.extent;
  return elements;
}

/// Where both operands end in the same two or more letters, in the same
/// order, and the output has none of them ("bij,bij->b"), those letters lie
/// in memory as one index of their sizes' product in both operands: they
/// become the one summed letter `fused`, so that a dot product's vectors
/// run along all of them (a Frobenius product "ij,ij->" with j = 3 would
/// otherwise fill 3 lanes of 16). Letters are renamed; no element moves.
/// Returns the letters fused, outermost first; none where the rule does
/// not apply, and `terms` and `sizes` are then unchanged.
std::string fuseSummedSuffix(EinsumTerms &terms, std::map<char, int64_t> &sizes,
                             char fused) {
  std::string &a = terms.operands[0];
  std::string &b = terms.operands[1];
  size_t common = 0;
  while (common < std::min(a.size(), b.size()) &&
         a[a.size() - 1 - common] == b[b.size() - 1 - common] &&
         terms.output.find(a[a.size() - 1 - common]) == std::string::npos)
    ++common;
  if (common < 2)
    return {};
  const std::string letters = a.substr(a.size() - common);
  int64_t size = 1;
  for (char letter : letters) {
    size *= sizes.at(letter); // Within A's elements: at most 2^40.
    sizes.erase(letter);
  }
  sizes[fused] = size;
  a.replace(a.size() - common, common, 1, fused);
  b.replace(b.size() - common, common, 1, fused);
  return letters;
}

/// What ContractionProblem makes of an einsum's terms for its kernel.
struct KernelForm {
  spec::Spec spec;
  /// "i,j summed as g" (fuseSummedSuffix), "b,a fused as g; A reordered"
  /// (VectorIndexFusion.h): for str(); empty where neither applies.
  std::string rewrites;
  std::optional<VectorIndexFusion> fusion;
};

/// The kernel's form of two-operand `terms` over `sizes`: summed letters
/// that end both operands fused, then the vector index fused where
/// `fuseVector`, then unit indices where the microkernels' roles lack
/// one, and B constant where `constantB`. Throws ttile::Error, naming
/// `einsum`, where no family takes it.
KernelForm kernelForm(EinsumTerms terms, std::map<char, int64_t> sizes,
                      bool constantB, bool fuseVector,
                      const std::string &einsum) {
  auto fail = [&](const std::string &message) {
    throw Error(fmt::format("contraction \"{}\": {}", einsum, message));
  };
  KernelForm form;
  spec::Spec spec = spec::contraction(terms.str(), sizes);
  if (std::optional<char> letter = unusedLetter(spec)) {
    const std::string fused = fuseSummedSuffix(terms, sizes, *letter);
    if (!fused.empty()) {
      for (char summed : fused)
        form.rewrites +=
            (form.rewrites.empty() ? "" : ",") + std::string(1, summed);
      form.rewrites += fmt::format(" summed as {}", *letter);
      spec = spec::contraction(terms.str(), sizes);
    }
  }
  if (std::optional<char> letter = unusedLetter(spec); letter && fuseVector) {
    form.fusion = VectorIndexFusion::find(terms.operands, terms.output, sizes,
                                          constantB, *letter);
    if (form.fusion) {
      form.rewrites += (form.rewrites.empty() ? "" : "; ") + form.fusion->str();
      terms.operands = form.fusion->operands();
      terms.output = form.fusion->output();
      sizes = form.fusion->sizes();
      spec = spec::contraction(terms.str(), sizes);
    }
  }

  // A matrix times a vector runs as it is (Search/FamilyBinding.h); any
  // other contraction as a matmul, which may need an index of size 1.
  const bool isDotProduct = search::dotProduct(spec).has_value();
  search::ContractionRoles roles;
  try {
    if (!isDotProduct)
      roles = search::contractionRoles(spec);
  } catch (const Error &error) {
    fail(error.what());
  }
  if (!isDotProduct && !roles.complete()) {
    // Unit indices go first in every term they join, so that each
    // operand keeps its contiguous letter.
    const std::vector<int> inputs = spec.inputIndices();
    const bool broadcastIsA = roles.broadcastInput == inputs[0];
    std::string &broadcast = terms.operands[broadcastIsA ? 0 : 1];
    std::string &vector = terms.operands[broadcastIsA ? 1 : 0];
    auto addUnitIndex = [&](std::initializer_list<std::string *> joined) {
      const char letter = freeLetter(spec, einsum);
      sizes[letter] = 1;
      for (std::string *term : joined)
        term->insert(0, 1, letter);
      spec = spec::contraction(terms.str(), sizes);
    };
    if (roles.combination.empty())
      addUnitIndex({&broadcast, &terms.output});
    if (roles.lanewise && roles.columns.empty())
      addUnitIndex({&vector, &terms.output});
    if (roles.reduction.empty())
      addUnitIndex({&broadcast, &vector});
  }
  spec.tensors[spec.inputIndices()[1]].constant = constantB;
  form.spec = std::move(spec);
  return form;
}

} // namespace

ContractionProblem::ContractionProblem(const ContractionParams &params)
    : params_(params) {
  const std::string &einsum = params.einsum;
  auto fail = [&](const std::string &message) {
    throw Error(fmt::format("contraction \"{}\": {}", einsum, message));
  };
  std::map<char, int64_t> sizes = params.sizes;
  spec::Spec spec = checkedEinsum("contraction", einsum, sizes);
  const std::vector<int> inputs = spec.inputIndices();
  if (inputs.size() != 2)
    fail(fmt::format("has {} operand{}; a Contraction takes two{}",
                     inputs.size(), inputs.size() == 1 ? "" : "s",
                     inputs.size() == 3 ? " (a ContractionChain three)" : ""));
  runShape_ = RunShape::ofProduct(
      elementsOf(spec.tensors[inputs[0]]), elementsOf(spec.tensors[inputs[1]]),
      0, elementsOf(spec.tensors[0]), params.constantB, /*residual=*/false);
  // Each tensor is bounded, but not the work: a letter summed within one
  // operand multiplies it alone ("ab,cd->ac").
  int64_t multiplyAdds = 1;
  for (const spec::Dim &dim : spec.dims)
    multiplyAdds =
        checkedProduct({multiplyAdds, dim.size},
                       "the contraction's multiply-adds", kMaxMultiplyAddsLog2);

  // A scalar output gets an index of size 1, as A's first letter too: the
  // dot product of a row of one.
  if (spec.output().axes.empty()) {
    EinsumTerms terms(spec);
    const char letter = freeLetter(spec, einsum);
    sizes[letter] = 1;
    terms.output = std::string(1, letter);
    terms.operands[0].insert(0, 1, letter);
    spec = spec::contraction(terms.str(), sizes);
  }
  // The kernel of the terms as laid out; of others, where it has none or
  // one whose vector has one lane (LayoutReordering.h).
  const EinsumTerms terms(spec);
  auto formOf = [&](const EinsumTerms &candidate,
                    const std::map<char, int64_t> &candidateSizes,
                    bool fuseVector) {
    return kernelForm(candidate, candidateSizes, params.constantB, fuseVector,
                      einsum);
  };
  std::optional<KernelForm> form;
  std::string refusal;
  try {
    form = formOf(terms, sizes, /*fuseVector=*/true);
  } catch (const Error &error) {
    refusal = error.what();
  }
  std::optional<LayoutReordering> reordering;
  // Each candidate's form, by its terms, so that the one kept is not
  // built again.
  std::map<std::string, KernelForm> candidateForms;
  if (!form || LayoutReordering::hasOneLaneVector(form->spec))
    reordering = LayoutReordering::find(
        terms, sizes, params.constantB,
        [&](const EinsumTerms &candidate,
            const std::map<char, int64_t> &candidateSizes) {
          return candidateForms
              .insert_or_assign(candidate.str(),
                                formOf(candidate, candidateSizes,
                                       /*fuseVector=*/false))
              .first->second.spec;
        });
  if (reordering) {
    form = std::move(candidateForms.at(reordering->terms().str()));
    orders_ = reordering->orders();
    reordersToVectorize_ = true;
    form->rewrites += (form->rewrites.empty() ? "" : "; ") + reordering->str();
  } else if (!form) {
    throw Error(refusal);
  } else if (form->fusion) {
    orders_ = form->fusion->orders();
  }
  rewrites_ = std::move(form->rewrites);
  spec_ = std::move(form->spec);
}

cache::CacheKey ContractionProblem::cacheKey() const {
  cache::CacheKey key;
  key.add("op", "contraction");
  key.add("einsum", EinsumTerms(spec_).str());
  for (const spec::Dim &dim : spec_.dims)
    key.add(dim.name, dim.size);
  key.add("weights", params_.constantB ? "constant" : "per-run");
  key.add("dtype", spec::elementTypeName(spec::ElementType::F32));
  key.add("threads", workerCount());
  return key;
}

std::string ContractionProblem::str() const {
  std::string sizes;
  for (const spec::Dim &dim : spec_.dims)
    sizes +=
        fmt::format("{}{}:{}", sizes.empty() ? "" : ",", dim.name, dim.size);
  return fmt::format("{} {}{}{}", EinsumTerms(spec_).str(), sizes,
                     params_.constantB ? " constantB" : "",
                     rewrites_.empty() ? "" : " (" + rewrites_ + ")");
}

spec::Spec checkedEinsum(std::string_view what, const std::string &einsum,
                         const std::map<char, int64_t> &sizes) {
  for (auto [letter, size] : sizes)
    checkIntegerField(fmt::format("sizes['{}']", letter), size, 1);
  spec::Spec spec = spec::contraction(einsum, sizes);
  for (auto [letter, size] : sizes)
    if (!spec.findDim(std::string_view(&letter, 1)))
      throw Error(fmt::format("{} \"{}\": sizes gives '{}', which is no "
                              "letter of it",
                              what, einsum, letter));
  return spec;
}

std::map<char, int64_t> parseContractionSizes(std::string_view text) {
  auto fail = [&](size_t at, const std::string &message) {
    throw Error(fmt::format("sizes \"{}\": {} at column {}; expected "
                            "LETTER:SIZE parts separated by ',', as in "
                            "\"a:72,b:24\"",
                            text, message, at + 1));
  };
  auto skipSpaces = [&](size_t at) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
      ++at;
    return at;
  };
  std::map<char, int64_t> sizes;
  size_t at = skipSpaces(0);
  if (at == text.size())
    fail(at, "no size");
  while (true) {
    if (at == text.size() || !std::isalpha(static_cast<unsigned char>(text[at])))
      fail(at, "no letter");
    const char letter = text[at];
    at = skipSpaces(at + 1);
    if (at == text.size() || text[at] != ':')
      fail(at, fmt::format("no ':' after '{}'", letter));
    at = skipSpaces(at + 1);
    int64_t size = 0;
    auto [end, error] = std::from_chars(text.data() + at,
                                        text.data() + text.size(), size);
    if (error != std::errc() || size < 1)
      fail(at, fmt::format("no positive size for '{}'", letter));
    if (!sizes.emplace(letter, size).second)
      fail(at, fmt::format("'{}' given twice", letter));
    at = skipSpaces(static_cast<size_t>(end - text.data()));
    if (at == text.size())
      return sizes;
    if (text[at] != ',')
      fail(at, "unexpected character");
    at = skipSpaces(at + 1);
  }
}

} // namespace ttile::runtime
