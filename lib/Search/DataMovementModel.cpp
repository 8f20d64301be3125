//===- Search/DataMovementModel.cpp - Rank schemes without running them ---===//

#include "Search/DataMovementModel.h"

#include "CodeGen/ScratchLayout.h"
#include "Scheme/Footprint.h"
#include "Scheme/Normalize.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ttile::search {
namespace {

constexpr int64_t kCacheLineBytes = 64;

/// Where a tensor's elements lie, per axis: the tensor itself, or, below a
/// Pack of it, the packed buffer (CodeGen/ScratchLayout.h), whose tiles a
/// microkernel reads in another order.
struct Layout {
  std::vector<int64_t> extents;
  std::vector<int64_t> strides; ///< In elements.
};

/// The cache lines a tile of one tensor touches, and the share of a cache
/// they take: lines that map to few of its sets (rows a multiple of 4 KiB
/// apart all fall in one set of a 48 KiB, 12-way L1) overflow those sets
/// long before the cache is full, as if they filled every set as densely.
struct TileLines {
  double bytes = 0;    ///< Of the lines touched.
  double occupied = 0; ///< bytes * sets / the sets they map to.
};

/// `tensor`'s footprint over `tile`, laid out as `layout`, in a cache of
/// `sets` sets (0: fully associative). Its runs of contiguous elements
/// (the axis of stride 1, merged with the next one out while the tile spans
/// a dense axis whole) are rounded out to whole lines: a run that does not
/// start on a line boundary touches (bytes + 60) / 64 lines on average. The
/// sets the runs map to are counted axis by axis: n runs a stride of s
/// lines apart cover min(n, sets / gcd(s, sets)) sets, or n where s is not
/// whole lines.
TileLines tileLines(const spec::Spec &spec, int tensor, const Layout &layout,
                    const std::vector<int64_t> &tile, int64_t sets) {
  const spec::Tensor &stored = spec.tensors[tensor];
  const int64_t elementBytes = spec::elementSize(stored.type);
  // Axes from the innermost (smallest stride) out.
  std::vector<size_t> inward(stored.axes.size());
  std::iota(inward.begin(), inward.end(), 0);
  std::stable_sort(inward.begin(), inward.end(), [&](size_t a, size_t b) {
    return layout.strides[a] < layout.strides[b];
  });
  double runs = 1;
  int64_t run = 1;
  bool extending = !inward.empty() && layout.strides[inward.front()] == 1;
  bool aligned = extending;
  std::vector<std::pair<int64_t, int64_t>> across; // (runs, stride in bytes)
  for (size_t k = 0; k < inward.size(); ++k) {
    const size_t a = inward[k];
    const int64_t range =
        std::min(scheme::axisSpan(stored.axes[a], tile), layout.extents[a]);
    const int64_t strideBytes = layout.strides[a] * elementBytes;
    if (extending) {
      run *= range;
      // The run of the next tile along this axis starts where this one ends.
      aligned = aligned && (range * strideBytes) % kCacheLineBytes == 0;
      extending = range == layout.extents[a] && k + 1 < inward.size() &&
                  layout.strides[inward[k + 1]] ==
                      layout.extents[a] * layout.strides[a];
    } else {
      runs *= static_cast<double>(range);
      aligned = aligned && strideBytes % kCacheLineBytes == 0;
      across.push_back({range, strideBytes});
    }
  }
  const double runBytes = static_cast<double>(run * elementBytes);
  const double linesPerRun =
      aligned ? std::ceil(runBytes / kCacheLineBytes)
              : (runBytes + kCacheLineBytes - elementBytes) / kCacheLineBytes;
  TileLines lines;
  lines.bytes = runs * linesPerRun * kCacheLineBytes;
  lines.occupied = lines.bytes;
  if (sets <= 0)
    return lines;
  double covered = std::min(std::ceil(linesPerRun), static_cast<double>(sets));
  for (const auto &[count, strideBytes] : across) {
    const int64_t step = strideBytes / kCacheLineBytes % sets;
    const int64_t reach = strideBytes % kCacheLineBytes ? count
                          : step == 0
                              ? 1
                              : std::min(count, sets / std::gcd(step, sets));
    covered = std::min(covered * static_cast<double>(reach),
                       static_cast<double>(sets));
  }
  lines.occupied = lines.bytes * static_cast<double>(sets) / covered;
  return lines;
}

/// The tensors' layouts where a walk of the tree stands, and the packed
/// buffers the Packs below switch them to.
struct Layouts {
  std::vector<Layout> current;
  const codegen::ScratchLayout *scratch;

  Layouts(const spec::Spec &spec, const codegen::ScratchLayout &scratch)
      : scratch(&scratch) {
    for (const spec::Tensor &tensor : spec.tensors) {
      Layout layout;
      for (const spec::TensorAxis &axis : tensor.axes)
        layout.extents.push_back(axis.extent);
      layout.strides = tensor.strides();
      current.push_back(std::move(layout));
    }
  }

  /// Below `node`: its Pack's tensor read from the packed buffer.
  Layouts below(const scheme::TileNode &node) const {
    if (node.kind != scheme::TileNode::Kind::Pack)
      return *this;
    Layouts inner = *this;
    const codegen::PackBuffer &buffer = scratch->buffers.at(&node);
    inner.current[node.tensor] = {buffer.extents, buffer.strides};
    return inner;
  }
};

/// The lines of every tensor a node's tile touches.
TileLines footprint(const scheme::TileNode &node, const spec::Spec &spec,
                    const Layouts &layouts, int64_t sets) {
  TileLines total;
  for (size_t t = 0; t < spec.tensors.size(); ++t) {
    TileLines lines = tileLines(spec, static_cast<int>(t), layouts.current[t],
                                node.extent, sets);
    total.bytes += lines.bytes;
    total.occupied += lines.occupied;
  }
  return total;
}

/// Bytes brought into `level` by one execution of `node`. The shortest
/// suffix of the nest that overflows the cache (a node that does not fit
/// whose children do) brings its footprint once per execution (thesis
/// 5.4.3: the lower bound is tight for these loop nests); above it,
/// executions multiply. A nest that fits is brought in once.
double volume(const scheme::TileNode &node, const spec::Spec &spec,
              const Layouts &layouts, const CacheModelLevel &level) {
  const double capacity = static_cast<double>(level.capacityBytes);
  const int64_t sets =
      level.ways > 0 ? level.capacityBytes / (level.ways * kCacheLineBytes) : 0;
  TileLines lines = footprint(node, spec, layouts, sets);
  const Layouts inner = layouts.below(node);
  bool childrenFit = std::all_of(
      node.children.begin(), node.children.end(),
      [&](const scheme::TileNode &child) {
        return footprint(child, spec, inner, sets).occupied <= capacity;
      });
  if (lines.occupied <= capacity || childrenFit)
    return lines.bytes;
  int64_t executions = 1;
  if (node.kind == scheme::TileNode::Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= loop.second;
  double total = 0;
  for (const scheme::TileNode &child : node.children)
    total += volume(child, spec, inner, level);
  return total * static_cast<double>(executions);
}

/// Bytes of the output in `node`'s tile, loaded and stored once per
/// execution of each accumulation region below it, times `executions`.
double accumulatorVolume(const scheme::TileNode &node, const spec::Spec &spec,
                         double executions) {
  using Kind = scheme::TileNode::Kind;
  bool registerTile =
      node.kind == Kind::Body ||
      (node.kind == Kind::Loop &&
       (node.loopKind == scheme::LoopKind::Unrolled ||
        node.loopKind == scheme::LoopKind::Vector));
  if (node.kind == Kind::Hoist || registerTile)
    return 2 * executions *
           static_cast<double>(scheme::tensorFootprint(spec, 0, node.extent) *
                               spec::elementSize(spec.output().type));
  if (node.kind == Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= static_cast<double>(loop.second);
  double total = 0;
  for (const scheme::TileNode &child : node.children)
    total += accumulatorVolume(child, spec, executions);
  return total;
}

/// Cycles the copies of the Packs in `node`'s subtree take, each executed
/// `executions` times: a copy whose innermost axis is contiguous in the
/// source too moves a vector at a time (CodeGen/Pack.cpp), any other an
/// element at a time.
double packCycles(const scheme::TileNode &node, const spec::Spec &spec,
                  double executions, int vectorWidth) {
  double cycles = 0;
  if (node.kind == scheme::TileNode::Kind::Pack) {
    const double elements = static_cast<double>(
        scheme::tensorFootprint(spec, node.tensor, node.extent));
    const bool byVectors =
        spec.tensors[node.tensor].strides()[node.axisOrder.back()] == 1;
    cycles +=
        executions * elements *
        (byVectors ? 1.0 / vectorWidth : DataMovementModel::kElementCopyCycles);
  }
  if (node.kind == scheme::TileNode::Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= static_cast<double>(loop.second);
  for (const scheme::TileNode &child : node.children)
    cycles += packCycles(child, spec, executions, vectorWidth);
  return cycles;
}

/// The first parallel loop in `node`'s subtree (a scheme has at most one;
/// a Lambda above it repeats it), or null.
const scheme::TileNode *findParallelLoop(const scheme::TileNode &node) {
  if (node.kind == scheme::TileNode::Kind::Loop &&
      node.loopKind == scheme::LoopKind::Parallel)
    return &node;
  for (const scheme::TileNode &child : node.children)
    if (const scheme::TileNode *found = findParallelLoop(child))
      return found;
  return nullptr;
}

} // namespace

double DataMovementModel::parallelSpeedup(const scheme::TileTree &tree,
                                          int workers) {
  const scheme::TileNode *parallel = findParallelLoop(tree.root);
  if (!parallel || workers < 2)
    return 1;
  int64_t iterations = 1;
  for (const auto &loop : parallel->loops)
    iterations *= loop.second;
  int64_t rounds = (iterations + workers - 1) / workers;
  return static_cast<double>(iterations) / static_cast<double>(rounds);
}

double DataMovementModel::accumulatorBytes(const scheme::TileTree &tree,
                                           const spec::Spec &spec) {
  return accumulatorVolume(tree.root, spec, 1);
}

DataMovementModel DataMovementModel::forHost(const HostInfo &host,
                                             int workers) {
  const double fill[] = {64, 32, 16};
  std::vector<CacheModelLevel> levels;
  for (size_t i = 0; i < host.dataCaches.size() && i < 3; ++i)
    levels.push_back(
        {host.dataCaches[i].bytes, fill[i], host.dataCaches[i].ways});
  return DataMovementModel(std::move(levels), workers);
}

std::vector<double> DataMovementModel::movement(const scheme::TileTree &tree,
                                                const spec::Spec &spec) const {
  const codegen::ScratchLayout scratch =
      codegen::ScratchLayout::plan(tree, spec);
  const Layouts layouts(spec, scratch);
  std::vector<double> bytes;
  for (const CacheModelLevel &level : levels_)
    bytes.push_back(volume(tree.root, spec, layouts, level));
  return bytes;
}

double DataMovementModel::packCopyCycles(const scheme::TileTree &tree,
                                         const spec::Spec &spec) {
  return packCycles(tree.root, spec, 1, tree.vectorWidth);
}

double DataMovementModel::computeCycles(const scheme::TileTree &tree,
                                        const spec::Spec &spec) {
  return static_cast<double>(spec.flops()) /
         (kFlopsPerLanePerCycle * tree.vectorWidth);
}

double DataMovementModel::cost(const scheme::TileTree &tree,
                               const spec::Spec &spec) const {
  std::vector<double> bytes = movement(tree, spec);
  double cycles = 0;
  for (size_t i = 0; i < levels_.size(); ++i) {
    double fill = bytes[i] / levels_[i].fillBytesPerCycle;
    cycles += i == 0 ? std::max(0.0, fill - computeCycles(tree, spec)) : fill;
  }
  cycles += accumulatorBytes(tree, spec) / kAccumulatorBytesPerCycle;
  cycles += packCopyCycles(tree, spec);
  return cycles / parallelSpeedup(tree, workers_);
}

double DataMovementModel::cycles(const scheme::TileTree &tree,
                                 const spec::Spec &spec) const {
  return computeCycles(tree, spec) / parallelSpeedup(tree, workers_) +
         cost(tree, spec);
}

double DataMovementModel::cost(const scheme::Scheme &scheme,
                               const spec::Spec &spec, int vectorWidth) const {
  return cost(scheme::buildTileTree(scheme::withInferredHoist(scheme, spec),
                                    spec, vectorWidth),
              spec);
}

} // namespace ttile::search
