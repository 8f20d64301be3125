//===- tools/Common/ProblemOptions.h - Problems on the command line -*- C++ -*-===//
//
// The command-line options every ttile tool uses to name a problem:
//   --conv K,C,outH,R[,stride]   a square valid convolution, thesis Fig. 6.1
//   --conv-full N=..,K=..,...    every field of spec::ConvShape
//   --matmul I,J,K
//   --einsum "ik,kj->ij" --sizes i=4,j=8,k=16
//   --constant W                 an input laid out ahead (CodeGen/Prepack.h)
//   --epilogue bias,res,silu     a convolution's bias, residual and
//                                activation (clamp=0:6, leakyrelu=0.1)
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_PROBLEMOPTIONS_H
#define TTILE_TOOLS_COMMON_PROBLEMOPTIONS_H

#include "Spec/Spec.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ttile::tools {

struct ProblemOptions {
  std::string conv, convFull, matmul, einsum, sizes, epilogue;
  std::vector<std::string> constants; ///< Tensors marked Tensor::constant.

  /// Adds the options above to `app`, mutually exclusive.
  void addTo(CLI::App &app);
  /// The problem given, if any. Malformed values throw CLI::ValidationError
  /// naming the option; invalid shapes throw ttile::Error.
  std::optional<spec::Spec> spec() const;
};

/// Reports a usage error found after parsing the way CLI11 reports its own.
[[noreturn]] void usageError(const std::string &option,
                             const std::string &message);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_PROBLEMOPTIONS_H
