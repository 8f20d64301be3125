//===- Search/ContractionRoles.cpp - A contraction read as a matmul -------===//

#include "Search/ContractionRoles.h"

#include "ttile/Error.h"

#include <optional>

namespace ttile::search {

ContractionRoles contractionRoles(const spec::Spec &spec) {
  const std::vector<int> inputs = spec.inputIndices();
  if (inputs.size() != 2)
    throw Error("a contraction is tuned with two inputs; this one has " +
                std::to_string(inputs.size()));
  const spec::Tensor &output = spec.tensors[0];
  if (output.axes.empty())
    throw Error("a contraction's output needs an index to vectorize; this "
                "one is a scalar");
  const spec::DimId vector = output.axes.back().index.terms.front().dim;
  ContractionRoles roles;
  roles.vector = spec.dims[vector].name;
  const bool inFirst = spec.tensors[inputs[0]].uses(vector);
  const bool inSecond = spec.tensors[inputs[1]].uses(vector);
  if (inFirst == inSecond)
    throw Error("the output's last index '" + roles.vector + "' is " +
                (inFirst ? "in both inputs" : "in neither input") +
                "; ttile vectorizes the output's last index, which must "
                "be an index of one input only (a batch index may stand "
                "anywhere else in the output)");
  roles.vectorInput = inFirst ? inputs[0] : inputs[1];
  roles.broadcastInput = inFirst ? inputs[1] : inputs[0];
  const spec::Tensor &vectorTensor = spec.tensors[roles.vectorInput];
  const spec::Tensor &broadcast = spec.tensors[roles.broadcastInput];

  // The largest index that `fits`, then the one stored latest in the
  // broadcast input.
  auto pick = [&](auto fits) {
    std::optional<spec::DimId> best;
    auto rank = [&](spec::DimId dim) {
      return std::pair{spec.dims[dim].size, broadcast.axisOf(dim).value_or(-1)};
    };
    for (size_t d = 0; d < spec.dims.size(); ++d) {
      auto dim = static_cast<spec::DimId>(d);
      if (fits(dim) && (!best || rank(dim) > rank(*best)))
        best = dim;
    }
    return best ? spec.dims[*best].name : std::string();
  };
  roles.combination = pick([&](spec::DimId dim) {
    return output.uses(dim) && broadcast.uses(dim) && !vectorTensor.uses(dim);
  });
  roles.reduction = pick([&](spec::DimId dim) {
    return spec.isReduction(dim) && broadcast.uses(dim) &&
           vectorTensor.uses(dim);
  });
  return roles;
}

} // namespace ttile::search
