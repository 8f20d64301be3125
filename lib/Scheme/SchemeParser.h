//===- Scheme/SchemeParser.h - Text form of schemes -------------*- C++ -*-===//
#ifndef TTILE_SCHEME_SCHEMEPARSER_H
#define TTILE_SCHEME_SCHEMEPARSER_H

#include "Scheme/Scheme.h"

#include <string>
#include <string_view>

namespace ttile::scheme {

/// Parses the one-line text form. Whitespace between tokens is free; atoms
/// are separated by whitespace. Throws ttile::Error (ErrorCode::InvalidScheme)
/// whose message gives the column and what was expected, e.g.
/// "column 7: expected ',' after the count of T".
Scheme parseScheme(std::string_view text);

/// The canonical text form: atoms separated by one space, no other spaces.
/// parseScheme(printScheme(s)) == s, and printScheme(parseScheme(t)) == t
/// for canonical t.
std::string printScheme(const Scheme &scheme);
std::string printAtom(const Atom &atom);

} // namespace ttile::scheme

#endif // TTILE_SCHEME_SCHEMEPARSER_H
