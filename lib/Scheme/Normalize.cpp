//===- Scheme/Normalize.cpp - Make implicit atoms explicit ----------------===//

#include "Scheme/Normalize.h"

#include <algorithm>

namespace ttile::scheme {
namespace {

/// The dimension of an R or T atom, or null for any other atom.
const std::string *serialLoopDim(const Atom &atom) {
  if (const auto *r = std::get_if<RAtom>(&atom))
    return &r->dim;
  if (const auto *t = std::get_if<TAtom>(&atom))
    return &t->dim;
  return nullptr;
}

} // namespace

Scheme withInferredHoist(const Scheme &scheme, const spec::Spec &spec) {
  const std::vector<Atom> &atoms = scheme.atoms;
  if (std::any_of(atoms.begin(), atoms.end(), [](const Atom &atom) {
        return std::holds_alternative<HoistAtom>(atom);
      }))
    return scheme;

  auto registerTile = std::find_if(atoms.begin(), atoms.end(), [](const Atom &atom) {
    return std::holds_alternative<UAtom>(atom) || std::holds_alternative<VAtom>(atom);
  });
  auto runStart = registerTile;
  HoistAtom hoist;
  while (runStart != atoms.begin()) {
    const std::string *dimName = serialLoopDim(*(runStart - 1));
    if (!dimName)
      break;
    auto dim = spec.findDim(*dimName);
    if (!dim || !spec.isReduction(*dim) || spec.output().uses(*dim))
      break;
    if (std::find(hoist.dims.begin(), hoist.dims.end(), *dimName) ==
        hoist.dims.end())
      hoist.dims.insert(hoist.dims.begin(), *dimName);
    --runStart;
  }
  if (hoist.dims.empty())
    return scheme;
  Scheme result;
  result.atoms.assign(atoms.begin(), runStart);
  result.atoms.push_back(hoist);
  result.atoms.insert(result.atoms.end(), runStart, atoms.end());
  return result;
}

} // namespace ttile::scheme
