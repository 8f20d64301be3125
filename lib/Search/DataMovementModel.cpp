//===- Search/DataMovementModel.cpp - Rank schemes without running them ---===//

#include "Search/DataMovementModel.h"

#include "CodeGen/ScratchLayout.h"
#include "Scheme/Footprint.h"
#include "Scheme/Normalize.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <utility>

namespace ttile::search {
namespace {

constexpr int64_t kCacheLineBytes = 64;
/// The longest stride the prefetchers follow: within a 4 KiB page.
constexpr int64_t kPrefetchStrideBytes = 4096;

/// Where a tensor's elements lie, per axis: the tensor itself, or, below a
/// Pack of it, the packed buffer (CodeGen/ScratchLayout.h), whose tiles a
/// microkernel reads in another order.
struct Layout {
  std::vector<int64_t> extents;
  std::vector<int64_t> strides; ///< In elements.
  /// The axes from the innermost (smallest stride) out, ties in axis
  /// order: runsOf() walks them for every tile the model prices, so they
  /// are sorted once, here.
  std::vector<size_t> inward;

  Layout(std::vector<int64_t> extents, std::vector<int64_t> strides)
      : extents(std::move(extents)), strides(std::move(strides)),
        inward(this->strides.size()) {
    std::iota(inward.begin(), inward.end(), 0);
    std::stable_sort(inward.begin(), inward.end(), [&](size_t a, size_t b) {
      return this->strides[a] < this->strides[b];
    });
  }
};

/// The cache lines a tile of one tensor touches, and the share of a cache
/// they take: lines that map to few of its sets (rows a multiple of 4 KiB
/// apart all fall in one set of a 48 KiB, 12-way L1) overflow those sets
/// long before the cache is full, as if they filled every set as densely.
struct TileLines {
  double bytes = 0;    ///< Of the lines touched.
  double occupied = 0; ///< bytes * sets / the sets they map to.
};

/// The layout of `tensor` as stored.
Layout storedLayout(const spec::Tensor &tensor) {
  std::vector<int64_t> extents;
  for (const spec::TensorAxis &axis : tensor.axes)
    extents.push_back(axis.extent);
  return Layout(std::move(extents), tensor.strides());
}

/// How a tile of one tensor lies in memory: `count` runs of `length`
/// contiguous elements each (the axis of stride 1, merged with the next one
/// out while the tile spans a dense axis whole), and the (runs, stride in
/// bytes) of each axis across them.
struct Runs {
  int64_t length = 1;
  double count = 1;
  /// Every run starts on a cache line, as does the next tile's along the
  /// runs' axis.
  bool aligned = false;
  std::vector<std::pair<int64_t, int64_t>> across;
};

Runs runsOf(const spec::Spec &spec, int tensor, const Layout &layout,
            const std::vector<int64_t> &tile) {
  const spec::Tensor &stored = spec.tensors[tensor];
  const int64_t elementBytes = spec::elementSize(stored.type);
  const std::vector<size_t> &inward = layout.inward;
  Runs runs;
  bool extending = !inward.empty() && layout.strides[inward.front()] == 1;
  runs.aligned = extending;
  for (size_t k = 0; k < inward.size(); ++k) {
    const size_t a = inward[k];
    const int64_t range =
        std::min(scheme::axisSpan(stored.axes[a], tile), layout.extents[a]);
    const int64_t strideBytes = layout.strides[a] * elementBytes;
    if (extending) {
      runs.length *= range;
      // The run of the next tile along this axis starts where this one ends.
      runs.aligned =
          runs.aligned && (range * strideBytes) % kCacheLineBytes == 0;
      extending = range == layout.extents[a] && k + 1 < inward.size() &&
                  layout.strides[inward[k + 1]] ==
                      layout.extents[a] * layout.strides[a];
    } else {
      runs.count *= static_cast<double>(range);
      runs.aligned = runs.aligned && strideBytes % kCacheLineBytes == 0;
      runs.across.push_back({range, strideBytes});
    }
  }
  return runs;
}

/// `tensor`'s footprint over `tile`, laid out as `layout`, in a cache of
/// `sets` sets (0: fully associative). Its runs are rounded out to whole
/// lines: a run that does not start on a line boundary touches
/// (bytes + 60) / 64 lines on average. The sets the runs map to are counted
/// axis by axis: n runs a stride of s lines apart cover
/// min(n, sets / gcd(s, sets)) sets, or n where s is not whole lines.
TileLines tileLines(const spec::Spec &spec, int tensor, const Layout &layout,
                    const std::vector<int64_t> &tile, int64_t sets) {
  const int64_t elementBytes = spec::elementSize(spec.tensors[tensor].type);
  const Runs runs = runsOf(spec, tensor, layout, tile);
  const double runBytes = static_cast<double>(runs.length * elementBytes);
  const double linesPerRun =
      runs.aligned
          ? std::ceil(runBytes / kCacheLineBytes)
          : (runBytes + kCacheLineBytes - elementBytes) / kCacheLineBytes;
  TileLines lines;
  lines.bytes = runs.count * linesPerRun * kCacheLineBytes;
  lines.occupied = lines.bytes;
  if (sets <= 0)
    return lines;
  double covered = std::min(std::ceil(linesPerRun), static_cast<double>(sets));
  for (const auto &[count, strideBytes] : runs.across) {
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
    for (const spec::Tensor &tensor : spec.tensors)
      current.push_back(storedLayout(tensor));
  }

  /// Below `node`: its Pack's tensor read from the packed buffer. Only a
  /// Pack copies the layouts, into `packed`: the model walks every node of
  /// every candidate it ranks, and below the others they are these.
  const Layouts &below(const scheme::TileNode &node,
                       std::optional<Layouts> &packed) const {
    if (node.kind != scheme::TileNode::Kind::Pack)
      return *this;
    packed = *this;
    const codegen::PackBuffer &buffer = scratch->buffers.at(&node);
    packed->current[node.tensor] = Layout(buffer.extents, buffer.strides);
    return *packed;
  }
};

/// Whether the output's accumulators are loaded at the start of every
/// execution of `node` and stored at its end: a Hoist, or a register tile
/// (the first unrolled or vector loop, or the body) outside one.
bool isAccumulationRegion(const scheme::TileNode &node) {
  using Kind = scheme::TileNode::Kind;
  return node.kind == Kind::Hoist || node.kind == Kind::Body ||
         (node.kind == Kind::Loop &&
          (node.loopKind == scheme::LoopKind::Unrolled ||
           node.loopKind == scheme::LoopKind::Vector));
}

/// The lines of the tensors a tile, `extent`, touches: all of them, or all but
/// the output where its tile is in registers (`inRegion`: at or below an
/// accumulation region).
TileLines footprint(const std::vector<int64_t> &extent, const spec::Spec &spec,
                    const Layouts &layouts, int64_t sets, bool inRegion) {
  TileLines total;
  for (size_t t = inRegion ? 1 : 0; t < spec.tensors.size(); ++t) {
    TileLines lines =
        tileLines(spec, static_cast<int>(t), layouts.current[t], extent, sets);
    total.bytes += lines.bytes;
    total.occupied += lines.occupied;
  }
  return total;
}

/// The tile that the loops of `node` from the `from`-th inward cover: a
/// Tfused runs its loops as T(n1,d1) T(n2,d2) ... nested, the last
/// innermost (Scheme/Scheme.h), each worker a contiguous block of them.
std::vector<int64_t> innerLoopsExtent(const scheme::TileNode &node,
                                      size_t from) {
  if (from == 0)
    return node.extent;
  std::vector<int64_t> extent = node.child().extent;
  for (size_t k = from; k < node.loops.size(); ++k)
    extent[node.loops[k].first] *= node.loops[k].second;
  return extent;
}

double volume(const scheme::TileNode &node, const spec::Spec &spec,
              const Layouts &layouts, const CacheModelLevel &level,
              bool inRegion);

/// volume() of `node`'s loops from the `from`-th inward, nested as they
/// run: a Tfused whose outer loops step over the tiles its inner loops
/// reuse in a cache is priced by that order, not as one loop whose
/// iterations reuse nothing (which ranked a Tfused over the items of a
/// batched matmul, the tile of one item inside, as dear as one that visits
/// each item in several passes).
double loopVolume(const scheme::TileNode &node, size_t from,
                  const spec::Spec &spec, const Layouts &layouts,
                  const CacheModelLevel &level, bool inRegion) {
  const double capacity = static_cast<double>(level.capacityBytes);
  const int64_t sets =
      level.ways > 0 ? level.capacityBytes / (level.ways * kCacheLineBytes) : 0;
  TileLines lines =
      footprint(innerLoopsExtent(node, from), spec, layouts, sets, inRegion);
  const bool innermost = from + 1 >= node.loops.size();
  std::optional<Layouts> packed;
  const Layouts &inner = layouts.below(node, packed);
  const bool childrenFit =
      innermost
          ? std::all_of(node.children.begin(), node.children.end(),
                        [&](const scheme::TileNode &child) {
                          return footprint(child.extent, spec, inner, sets,
                                           inRegion ||
                                               isAccumulationRegion(child))
                                     .occupied <= capacity;
                        })
          : footprint(innerLoopsExtent(node, from + 1), spec, layouts, sets,
                      inRegion)
                    .occupied <= capacity;
  if (lines.occupied <= capacity || childrenFit)
    return lines.bytes;
  double total = 0;
  if (!innermost)
    total = loopVolume(node, from + 1, spec, layouts, level, inRegion);
  else
    for (const scheme::TileNode &child : node.children)
      total += volume(child, spec, inner, level, inRegion);
  const int64_t executions =
      node.kind == scheme::TileNode::Kind::Loop ? node.loops[from].second : 1;
  return total * static_cast<double>(executions);
}

/// Bytes brought into `level` by one execution of `node`. The shortest
/// suffix of the nest that overflows the cache (a node that does not fit
/// whose children do) brings its footprint once per execution (thesis
/// 5.4.3: the lower bound is tight for these loop nests); above it,
/// executions multiply. A nest that fits is brought in once. Below an
/// accumulation region (`inRegion`) the output's tile is in registers: it
/// takes no room in the cache, and its loads and stores are the
/// accumulators' term.
double volume(const scheme::TileNode &node, const spec::Spec &spec,
              const Layouts &layouts, const CacheModelLevel &level,
              bool inRegion) {
  return loopVolume(node, 0, spec, layouts, level,
                    inRegion || isAccumulationRegion(node));
}

/// The output's accumulators that the regions load and store: their bytes,
/// and the runs of contiguous elements (rows) they come in.
struct Accumulators {
  double bytes = 0;
  double runs = 0;
};

/// The accumulators of the regions in `node`'s subtree, loaded and stored
/// once per execution of each, times `executions`.
Accumulators accumulatorsOf(const scheme::TileNode &node,
                            const spec::Spec &spec, double executions) {
  using Kind = scheme::TileNode::Kind;
  if (isAccumulationRegion(node)) {
    const spec::Tensor &output = spec.output();
    return {
        2 * executions *
            static_cast<double>(scheme::tensorFootprint(spec, 0, node.extent) *
                                spec::elementSize(output.type)),
        2 * executions *
            runsOf(spec, 0, storedLayout(output), node.extent).count};
  }
  if (node.kind == Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= static_cast<double>(loop.second);
  Accumulators total;
  for (const scheme::TileNode &child : node.children) {
    Accumulators below = accumulatorsOf(child, spec, executions);
    total.bytes += below.bytes;
    total.runs += below.runs;
  }
  return total;
}

/// Whether a loop of `count` iterations whose child's tile lies in memory
/// as `inner` steps along its runs: its tile, `outer`, holds `count` times
/// the elements in no more runs (fewer where the rows join into one).
bool extendsRuns(const Runs &outer, const Runs &inner, int64_t count) {
  return outer.count <= inner.count &&
         static_cast<double>(outer.length) * outer.count ==
             static_cast<double>(count * inner.length) * inner.count;
}

/// The bytes from the first to the last element of a tile whose runs are
/// `runs`.
int64_t spanBytes(const Runs &runs, int64_t elementBytes) {
  int64_t span = runs.length * elementBytes;
  for (const auto &[range, strideBytes] : runs.across)
    span += (range - 1) * strideBytes;
  return span;
}

/// Whether the loop of `count` iterations along `dim` whose iterations
/// each cover `inner` (its tile: `outer`) continues the output's runs in
/// memory the way the hardware prefetchers follow them: it steps along them
/// (extendsRuns), or steps by a constant stride within a page
/// (kPrefetchStrideBytes) a tile whose rows are whole lines (no line is
/// left for a later region to finish) or which lies within a page itself
/// (its rows one stream, whose lines a later region finishes while the
/// caches still hold them).
bool continuesRuns(const spec::Spec &spec, const Layout &output,
                   spec::DimId dim, int64_t count,
                   const std::vector<int64_t> &outer,
                   const std::vector<int64_t> &inner) {
  const Runs before = runsOf(spec, 0, output, inner);
  if (extendsRuns(runsOf(spec, 0, output, outer), before, count))
    return true;
  const spec::Tensor &tensor = spec.output();
  if (!before.aligned &&
      spanBytes(before, spec::elementSize(tensor.type)) > kPrefetchStrideBytes)
    return false;
  int64_t stepElements = 0;
  for (size_t a = 0; a < tensor.axes.size(); ++a)
    stepElements +=
        tensor.axes[a].index.coeffOf(dim) * inner[dim] * output.strides[a];
  return std::abs(stepElements) * spec::elementSize(tensor.type) <=
         kPrefetchStrideBytes;
}

/// The times the accumulation regions in `node`'s subtree, each executed
/// `executions` times, start new runs of the output `output` in memory.
/// A region continues the runs of the one before where the loops between
/// them step along the runs, or go over a reduction whose iterations the
/// outermost cache, of `cacheBytes`, holds (the region finds its tile
/// there). `path`: the nodes above, outermost first; nodes other than
/// loops leave the runs as they are.
double outputStreamStarts(const scheme::TileNode &node, const spec::Spec &spec,
                          const Layout &output, double cacheBytes,
                          std::vector<const scheme::TileNode *> &path,
                          double executions) {
  using Kind = scheme::TileNode::Kind;
  if (isAccumulationRegion(node)) {
    // The loops above, innermost first; a Tfused's loops nested as each
    // worker runs them (its block of them contiguous), a Tpar's
    // iterations on other workers.
    double regionsPerRun = 1;
    for (auto above = path.rbegin(); above != path.rend(); ++above) {
      const scheme::TileNode &loop = **above;
      if (loop.kind != Kind::Loop)
        continue;
      const bool fused =
          loop.loopKind == scheme::LoopKind::Parallel && loop.loops.size() > 1;
      if (loop.loopKind != scheme::LoopKind::Serial && !fused)
        break;
      for (size_t k = loop.loops.size(); k-- > 0;) {
        const auto [dim, count] = loop.loops[k];
        const std::vector<int64_t> inner = innerLoopsExtent(loop, k + 1);
        const bool revisits = !spec.output().uses(dim);
        // A reduction's iterations are each other's reuse distance.
        if (revisits ? static_cast<double>(
                           scheme::footprintBytes(spec, inner)) > cacheBytes
                     : !continuesRuns(spec, output, dim, count,
                                      innerLoopsExtent(loop, k), inner))
          return executions / regionsPerRun;
        regionsPerRun *= static_cast<double>(count);
      }
    }
    return executions / regionsPerRun;
  }
  if (node.kind == Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= static_cast<double>(loop.second);
  path.push_back(&node);
  double starts = 0;
  for (const scheme::TileNode &child : node.children)
    starts +=
        outputStreamStarts(child, spec, output, cacheBytes, path, executions);
  path.pop_back();
  return starts;
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

namespace {

double parallelStartsIn(const scheme::TileNode &node, double executions) {
  if (node.kind == scheme::TileNode::Kind::Loop &&
      node.loopKind == scheme::LoopKind::Parallel)
    return executions;
  if (node.kind == scheme::TileNode::Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= static_cast<double>(loop.second);
  double starts = 0;
  for (const scheme::TileNode &child : node.children)
    starts += parallelStartsIn(child, executions);
  return starts;
}

} // namespace

double DataMovementModel::parallelLoopStarts(const scheme::TileTree &tree) {
  return parallelStartsIn(tree.root, 1);
}

double DataMovementModel::accumulatorBytes(const scheme::TileTree &tree,
                                           const spec::Spec &spec) {
  return accumulatorsOf(tree.root, spec, 1).bytes;
}

double DataMovementModel::accumulatorRuns(const scheme::TileTree &tree,
                                          const spec::Spec &spec) {
  return accumulatorsOf(tree.root, spec, 1).runs;
}

double DataMovementModel::outputStreams(const scheme::TileTree &tree,
                                        const spec::Spec &spec) const {
  const spec::Tensor &output = spec.output();
  const double outputBytes = static_cast<double>(
      output.numElements() * spec::elementSize(output.type));
  if (levels_.empty())
    return 0;
  const double cacheBytes = static_cast<double>(levels_.back().capacityBytes);
  if (outputBytes <= cacheBytes)
    return 0;
  std::vector<const scheme::TileNode *> path;
  return outputStreamStarts(tree.root, spec, storedLayout(output), cacheBytes,
                            path, 1);
}

double DataMovementModel::outputStreamCycles(double starts,
                                             double issueCycles) {
  return std::max(0.0, starts * kMemoryLatencyCycles - issueCycles);
}

DataMovementModel DataMovementModel::forHost(const HostInfo &host,
                                             int workers) {
  const double fill[] = {64, 32, 16};
  std::vector<CacheModelLevel> levels;
  for (size_t i = 0; i < host.dataCaches.size() && i < 3; ++i)
    levels.push_back(
        {host.dataCaches[i].bytes, fill[i], host.dataCaches[i].ways});
  return DataMovementModel(std::move(levels), workers, host.fullRateLanes);
}

std::vector<double> DataMovementModel::movement(const scheme::TileTree &tree,
                                                const spec::Spec &spec) const {
  const codegen::ScratchLayout scratch =
      codegen::ScratchLayout::plan(tree, spec);
  const Layouts layouts(spec, scratch);
  std::vector<double> bytes;
  for (const CacheModelLevel &level : levels_)
    bytes.push_back(volume(tree.root, spec, layouts, level, false));
  return bytes;
}

double DataMovementModel::packCopyCycles(const scheme::TileTree &tree,
                                         const spec::Spec &spec) {
  return packCycles(tree.root, spec, 1, tree.vectorWidth);
}

double DataMovementModel::flopsPerCycle(int lanes) const {
  return kFlopsPerLanePerCycle *
         (fullRateLanes_ > 0 ? std::min(lanes, fullRateLanes_) : lanes);
}

double DataMovementModel::computeCycles(const scheme::TileTree &tree,
                                        const spec::Spec &spec) const {
  return static_cast<double>(spec.flops()) / flopsPerCycle(tree.vectorWidth);
}

double DataMovementModel::issueCycles(const scheme::TileTree &tree,
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
    cycles += i == 0 ? std::max(0.0, fill - issueCycles(tree, spec)) : fill;
  }
  const Accumulators accumulators = accumulatorsOf(tree.root, spec, 1);
  cycles += accumulators.bytes / kAccumulatorBytesPerCycle +
            accumulators.runs * kAccumulatorRunCycles;
  cycles +=
      outputStreamCycles(outputStreams(tree, spec), issueCycles(tree, spec));
  cycles += packCopyCycles(tree, spec);
  cycles /= parallelSpeedup(tree, workers_);
  if (workers_ > 1)
    cycles += parallelLoopStarts(tree) * kForkJoinCycles;
  return cycles;
}

double DataMovementModel::cycles(const scheme::TileTree &tree,
                                 const spec::Spec &spec) const {
  return computeCycles(tree, spec) / parallelSpeedup(tree, workers_) +
         cost(tree, spec);
}

double DataMovementModel::cycles(const scheme::Scheme &scheme,
                                 const spec::Spec &spec,
                                 int vectorWidth) const {
  return cycles(scheme::buildTileTree(scheme::withInferredHoist(scheme, spec),
                                      spec, vectorWidth),
                spec);
}

} // namespace ttile::search
