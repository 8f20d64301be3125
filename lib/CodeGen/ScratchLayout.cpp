//===- CodeGen/ScratchLayout.cpp - Where packed buffers live --------------===//

#include "CodeGen/ScratchLayout.h"

#include "Scheme/Footprint.h"

#include <algorithm>

namespace ttile::codegen {
namespace {

int64_t alignUp(int64_t value) {
  return (value + ScratchLayout::kAlignment - 1) / ScratchLayout::kAlignment *
         ScratchLayout::kAlignment;
}

void planNode(const scheme::TileNode &node, const spec::Spec &spec,
              bool insideParallel, ScratchLayout &layout) {
  using Kind = scheme::TileNode::Kind;
  if (node.kind == Kind::Pack) {
    const spec::Tensor &tensor = spec.tensors[node.tensor];
    PackBuffer buffer;
    buffer.perWorker = insideParallel;
    for (const spec::TensorAxis &axis : tensor.axes) {
      int64_t span = 1;
      for (const spec::AffineExpr::Term &term : axis.index.terms)
        span += term.coeff * (node.extent[term.dim] - 1);
      // A tile reaching into the padding packs its zeros too.
      buffer.extents.push_back(axis.zeroPadded ? span
                                               : std::min(span, axis.extent));
    }
    // Row-major over the packed order: the last listed axis is contiguous.
    buffer.strides.assign(tensor.axes.size(), 0);
    int64_t stride = 1;
    for (auto it = node.axisOrder.rbegin(); it != node.axisOrder.rend(); ++it) {
      buffer.strides[*it] = stride;
      stride *= buffer.extents[*it];
    }
    int64_t bytes = alignUp(stride * spec::elementSize(tensor.type));
    int64_t &region = insideParallel ? layout.perWorkerBytes : layout.sharedBytes;
    buffer.offset = region;
    region += bytes;
    layout.buffers.emplace(&node, std::move(buffer));
  }
  bool parallel = node.kind == Kind::Loop &&
                  node.loopKind == scheme::LoopKind::Parallel;
  for (const scheme::TileNode &child : node.children)
    planNode(child, spec, insideParallel || parallel, layout);
}

} // namespace

ScratchLayout ScratchLayout::plan(const scheme::TileTree &tree,
                                  const spec::Spec &spec) {
  ScratchLayout layout;
  planNode(tree.root, spec, /*insideParallel=*/false, layout);
  return layout;
}

} // namespace ttile::codegen
