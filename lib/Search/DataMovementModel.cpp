//===- Search/DataMovementModel.cpp - Rank schemes without running them ---===//

#include "Search/DataMovementModel.h"

#include "Scheme/Footprint.h"
#include "Scheme/Normalize.h"

#include <algorithm>

namespace ttile::search {
namespace {

/// Bytes of every tensor a node's tile touches.
double footprintBytes(const scheme::TileNode &node, const spec::Spec &spec) {
  double bytes = 0;
  for (size_t t = 0; t < spec.tensors.size(); ++t)
    bytes += static_cast<double>(
                 scheme::tensorFootprint(spec, static_cast<int>(t), node.extent)) *
             static_cast<double>(spec::elementSize(spec.tensors[t].type));
  return bytes;
}

/// Bytes brought into a cache of `capacity` bytes by one execution of
/// `node`. The shortest suffix of the nest that overflows the cache (a node
/// that does not fit whose children do) brings its footprint once per
/// execution (thesis 5.4.3: the lower bound is tight for these loop nests);
/// above it, executions multiply. A nest that fits is brought in once.
double volume(const scheme::TileNode &node, const spec::Spec &spec,
              double capacity) {
  double footprint = footprintBytes(node, spec);
  bool childrenFit = std::all_of(
      node.children.begin(), node.children.end(),
      [&](const scheme::TileNode &child) {
        return footprintBytes(child, spec) <= capacity;
      });
  if (footprint <= capacity || childrenFit)
    return footprint;
  int64_t executions = 1;
  if (node.kind == scheme::TileNode::Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= loop.second;
  double total = 0;
  for (const scheme::TileNode &child : node.children)
    total += volume(child, spec, capacity);
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
    levels.push_back({host.dataCaches[i].bytes, fill[i]});
  return DataMovementModel(std::move(levels), workers);
}

std::vector<double> DataMovementModel::movement(const scheme::TileTree &tree,
                                                const spec::Spec &spec) const {
  std::vector<double> bytes;
  for (const CacheModelLevel &level : levels_)
    bytes.push_back(
        volume(tree.root, spec, static_cast<double>(level.capacityBytes)));
  return bytes;
}

double DataMovementModel::cost(const scheme::TileTree &tree,
                               const spec::Spec &spec) const {
  std::vector<double> bytes = movement(tree, spec);
  double cycles = 0;
  for (size_t i = 0; i < levels_.size(); ++i)
    cycles += bytes[i] / levels_[i].fillBytesPerCycle;
  cycles += accumulatorBytes(tree, spec) / kAccumulatorBytesPerCycle;
  return cycles / parallelSpeedup(tree, workers_);
}

double DataMovementModel::cost(const scheme::Scheme &scheme,
                               const spec::Spec &spec, int vectorWidth) const {
  return cost(scheme::buildTileTree(scheme::withInferredHoist(scheme, spec),
                                    spec, vectorWidth),
              spec);
}

} // namespace ttile::search
