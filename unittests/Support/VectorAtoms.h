//===- unittests/Support/VectorAtoms.h - What V vectorizes ------*- C++ -*-===//
//
// A tuned scheme's V atom names the dimension it vectorizes, and on some
// hosts the lanes the search fixed (V(k,8) on AMD Zen 4: Scheme/Scheme.h),
// so tests that ask which dimension a scheme's text vectorizes match both
// forms through these rather than the text "V(k)".
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_SUPPORT_VECTORATOMS_H
#define TTILE_UNITTESTS_SUPPORT_VECTORATOMS_H

#include <iterator>
#include <regex>
#include <string>

namespace ttile::testing {

/// V(dim) or V(dim,lanes), as a regular expression; `dim` may be one
/// itself ("([a-z])" captures the letter).
inline std::string vectorAtomPattern(const std::string &dim) {
  return "V\\(" + dim + "(,[0-9]+)?\\)";
}

/// The V atoms along `dim` in `text` (a scheme, or several).
inline long vectorAtomsAlong(const std::string &text, const std::string &dim) {
  const std::regex atom(vectorAtomPattern(dim));
  return std::distance(std::sregex_iterator(text.begin(), text.end(), atom),
                       std::sregex_iterator());
}

/// Whether the last atom of `text` is a V along `dim`.
inline bool endsVectorizing(const std::string &text, const std::string &dim) {
  return std::regex_search(text, std::regex(vectorAtomPattern(dim) + "$"));
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SUPPORT_VECTORATOMS_H
