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
  if (!inFirst && !inSecond)
    throw Error("the output's last index '" + roles.vector +
                "' is in neither input");
  roles.lanewise = inFirst && inSecond;
  if (roles.lanewise) {
    for (int input : inputs) {
      const spec::Tensor &tensor = spec.tensors[input];
      if (!tensor.axes.back().index.uses(vector))
        throw Error("the output's last index '" + roles.vector +
                    "' is in both inputs, but not last in " + tensor.name +
                    "; ttile vectorizes the output's last index, which must "
                    "be an index of one input only, or the last of every "
                    "tensor (each vector lane then a product of its own)");
    }
  }
  roles.vectorInput = inSecond ? inputs[1] : inputs[0];
  roles.broadcastInput = inSecond ? inputs[0] : inputs[1];
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
  if (roles.lanewise)
    roles.columns = pick([&](spec::DimId dim) {
      return output.uses(dim) && vectorTensor.uses(dim) && !broadcast.uses(dim);
    });
  roles.reduction = pick([&](spec::DimId dim) {
    return spec.isReduction(dim) && broadcast.uses(dim) &&
           vectorTensor.uses(dim);
  });
  return roles;
}

} // namespace ttile::search
