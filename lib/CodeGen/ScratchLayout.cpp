//===- CodeGen/ScratchLayout.cpp - Where packed buffers live --------------===//

#include "CodeGen/ScratchLayout.h"

#include "Scheme/Footprint.h"
#include "ttile/Error.h"

#include <algorithm>
#include <set>

namespace ttile::codegen {
namespace {

int64_t alignUp(int64_t value) {
  return (value + ScratchLayout::kAlignment - 1) / ScratchLayout::kAlignment *
         ScratchLayout::kAlignment;
}

/// The distance between the rows of a packed tile `rowElements` long. A
/// row of a multiple of 1 KiB would put the rows a microkernel reads one
/// after another in a few sets of the L1 (every 4 KiB maps to the same
/// set), where they evict each other: a 1024-wide tile of B ran a 1024^3
/// matmul at 80 GFLOP/s, against 138 for a 64-wide one and 160 for the
/// unpacked B of rows 1040 floats apart. Such rows are one cache line
/// apart more, as BLAS libraries pad their leading dimensions.
int64_t paddedRowStride(int64_t rowElements, spec::ElementType type) {
  constexpr int64_t kConflictingBytes = 1024;
  const int64_t size = spec::elementSize(type);
  if (rowElements * size % kConflictingBytes != 0)
    return rowElements;
  return rowElements + ScratchLayout::kAlignment / size;
}

/// The tile `node` packs, and where each of its tiles starts along the
/// tensor (constant tensors only: every axis is one dimension). One tile
/// spans `elements`, its row padding included.
ConstantLayout constantLayout(const scheme::TileNode &node,
                              const spec::Tensor &tensor, PackBuffer tile,
                              int64_t elements) {
  ConstantLayout layout;
  for (size_t a = 0; a < tensor.axes.size(); ++a) {
    int64_t step = node.extent[tensor.axes[a].index.terms.front().dim];
    layout.step.push_back(step);
    layout.tiles.push_back((tensor.axes[a].extent + step - 1) / step);
  }
  int64_t perLine = ScratchLayout::kAlignment / spec::elementSize(tensor.type);
  layout.tileElements = (elements + perLine - 1) / perLine * perLine;
  tile.laidOutAhead = true;
  layout.tile = std::move(tile);
  layout.axisOrder = node.axisOrder;
  return layout;
}

void planNode(const scheme::TileNode &node, const spec::Spec &spec,
              bool insideParallel, std::set<int> packedAbove,
              ScratchLayout &layout) {
  using Kind = scheme::TileNode::Kind;
  if (node.kind == Kind::Pack) {
    const spec::Tensor &tensor = spec.tensors[node.tensor];
    PackBuffer buffer;
    buffer.perWorker = insideParallel;
    for (const spec::TensorAxis &axis : tensor.axes) {
      const int64_t span = scheme::axisSpan(axis, node.extent);
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
      if (it == node.axisOrder.rbegin())
        stride = paddedRowStride(stride, tensor.type);
    }
    if (tensor.constant && !packedAbove.contains(node.tensor)) {
      ConstantLayout constant =
          constantLayout(node, tensor, std::move(buffer), stride);
      // The Pack appears once per part of a Lambda above it, always with
      // the same tile: Validate.h forbids a Lambda over its dimensions.
      auto [known, inserted] = layout.constants.emplace(node.tensor, constant);
      if (!inserted && (known->second.tile.extents != constant.tile.extents ||
                        known->second.tile.strides != constant.tile.strides))
        throw Error("the constant tensor " + tensor.name +
                        " is packed in tiles of two shapes, which validation "
                        "should have refused",
                    ErrorCode::Internal);
      layout.buffers.emplace(&node, constant.tile);
    } else {
      int64_t bytes = alignUp(stride * spec::elementSize(tensor.type));
      int64_t &region =
          insideParallel ? layout.perWorkerBytes : layout.sharedBytes;
      buffer.offset = region;
      region += bytes;
      layout.buffers.emplace(&node, std::move(buffer));
    }
    packedAbove.insert(node.tensor);
  }
  bool parallel = node.kind == Kind::Loop &&
                  node.loopKind == scheme::LoopKind::Parallel;
  for (const scheme::TileNode &child : node.children)
    planNode(child, spec, insideParallel || parallel, packedAbove, layout);
}

} // namespace

ScratchLayout ScratchLayout::plan(const scheme::TileTree &tree,
                                  const spec::Spec &spec) {
  ScratchLayout layout;
  planNode(tree.root, spec, /*insideParallel=*/false, {}, layout);
  return layout;
}

int64_t ConstantLayout::elements() const {
  int64_t count = tileElements;
  for (int64_t along : tiles)
    count *= along;
  return count;
}

} // namespace ttile::codegen
