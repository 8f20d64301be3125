//===- Scheme/Tiling.cpp - Build the tile tree of a scheme ----------------===//

#include "Scheme/Tiling.h"

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"

#include <algorithm>
#include <bit>
#include <string>

namespace ttile::scheme {
namespace {

/// Builds the tree outermost atom first, recursively, so that a Lambda can
/// build the nest below it once per part with its factor bound.
class TreeBuilder {
public:
  TreeBuilder(const Scheme &scheme, const spec::Spec &spec, int vectorWidth)
      : scheme_(scheme), spec_(spec), vectorWidth_(vectorWidth) {}

  TileNode build(size_t position) {
    if (position == scheme_.atoms.size()) {
      TileNode body;
      body.extent.assign(spec_.dims.size(), 1);
      return body;
    }
    const int atom = static_cast<int>(position);
    return std::visit(
        Overloaded{
            [&](const RAtom &a) {
              DimId d = dim(atom, a.dim);
              TileNode child = build(position + 1);
              int64_t inner = child.extent[d];
              int64_t count = (spec_.dims[d].size + inner - 1) / inner;
              return loop(atom, LoopKind::Serial, {{d, count}}, std::move(child));
            },
            [&](const TAtom &a) {
              DimId d = dim(atom, a.dim);
              positive(atom, a.count);
              return loop(atom, LoopKind::Serial, {{d, a.count}}, build(position + 1));
            },
            [&](const UAtom &a) {
              DimId d = dim(atom, a.dim);
              int64_t count = a.parametric ? boundFactor(atom, d) : a.count;
              positive(atom, count);
              return loop(atom, LoopKind::Unrolled, {{d, count}}, build(position + 1));
            },
            [&](const VAtom &a) {
              DimId d = dim(atom, a.dim);
              return loop(atom, LoopKind::Vector, {{d, vectorWidth_}},
                          build(position + 1));
            },
            [&](const LambdaAtom &a) { return lambda(atom, a, position); },
            [&](const HoistAtom &a) {
              TileNode node;
              node.kind = TileNode::Kind::Hoist;
              node.atom = atom;
              for (const std::string &name : a.dims)
                node.hoistDims.push_back(dim(atom, name));
              return wrap(std::move(node), build(position + 1));
            },
            [&](const PackAtom &a) { return pack(atom, a, position); },
            [&](const TparAtom &a) {
              DimId d = dim(atom, a.dim);
              positive(atom, a.count);
              return loop(atom, LoopKind::Parallel, {{d, a.count}}, build(position + 1));
            },
            [&](const TfusedAtom &a) {
              std::vector<std::pair<DimId, int64_t>> loops;
              for (const auto &[name, count] : a.loops) {
                positive(atom, count);
                loops.emplace_back(dim(atom, name), count);
              }
              if (loops.empty())
                fail(atom, "Tfused needs at least one (dimension, count) pair");
              return loop(atom, LoopKind::Parallel, std::move(loops),
                          build(position + 1));
            },
        },
        scheme_.atoms[position]);
  }

private:
  [[noreturn]] void fail(int atom, const std::string &message) const {
    throw Error("atom " + std::to_string(atom + 1) + " '" +
                    printAtom(scheme_.atoms[atom]) + "': " + message,
                ErrorCode::InvalidScheme);
  }

  DimId dim(int atom, const std::string &name) const {
    if (auto d = spec_.findDim(name))
      return *d;
    std::string known;
    for (const spec::Dim &dim : spec_.dims)
      known += (known.empty() ? "" : ", ") + dim.name;
    fail(atom, "unknown dimension '" + name + "' (the " + spec_.name +
                   " spec has " + known + ")");
  }

  void positive(int atom, int64_t count) const {
    if (count <= 0)
      fail(atom, "count must be positive, got " + std::to_string(count));
  }

  int64_t boundFactor(int atom, DimId d) const {
    for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it)
      if (it->first == d)
        return it->second;
    fail(atom, "U(lambda," + spec_.dims[d].name + ") has no Lambda(" +
                   spec_.dims[d].name + ",...) above it");
  }

  static TileNode wrap(TileNode node, TileNode child) {
    node.extent = child.extent;
    node.children.push_back(std::move(child));
    return node;
  }

  TileNode loop(int atom, LoopKind kind,
                std::vector<std::pair<DimId, int64_t>> loops,
                TileNode child) const {
    TileNode node;
    node.kind = TileNode::Kind::Loop;
    node.atom = atom;
    node.loopKind = kind;
    node.loops = std::move(loops);
    node = wrap(std::move(node), std::move(child));
    for (const auto &[d, count] : node.loops)
      node.extent[d] = checkedProduct(atom, node.extent[d], count);
    return node;
  }

  int64_t checkedProduct(int atom, int64_t a, int64_t b) const {
    int64_t product;
    if (__builtin_mul_overflow(a, b, &product))
      fail(atom, "the tiles' extent overflows 64 bits");
    return product;
  }

  TileNode lambda(int atom, const LambdaAtom &a, size_t position) {
    DimId d = dim(atom, a.dim);
    if (a.parts.size() < 2)
      fail(atom, "a Lambda needs at least two (repetitions, factor) parts");
    TileNode node;
    node.kind = TileNode::Kind::Sequence;
    node.atom = atom;
    for (const auto &[repetitions, factor] : a.parts) {
      positive(atom, repetitions);
      positive(atom, factor);
      bindings_.emplace_back(d, factor);
      TileNode part = build(position + 1);
      bindings_.pop_back();
      node.children.push_back(
          loop(atom, LoopKind::Serial, {{d, repetitions}}, std::move(part)));
    }
    node.extent = node.children.front().extent;
    node.extent[d] = 0;
    for (const TileNode &part : node.children)
      if (__builtin_add_overflow(node.extent[d], part.extent[d], &node.extent[d]))
        fail(atom, "the parts' extent overflows 64 bits");
    return node;
  }

  TileNode pack(int atom, const PackAtom &a, size_t position) {
    auto tensor = spec_.findTensor(a.tensor);
    if (!tensor)
      fail(atom, "unknown tensor '" + a.tensor + "'");
    const spec::Tensor &t = spec_.tensors[*tensor];
    TileNode node;
    node.kind = TileNode::Kind::Pack;
    node.atom = atom;
    node.tensor = *tensor;
    if (a.permutation.empty()) {
      for (size_t i = 0; i < t.axes.size(); ++i)
        node.axisOrder.push_back(static_cast<int>(i));
    } else {
      for (const std::string &name : a.permutation) {
        auto it = std::find_if(t.axes.begin(), t.axes.end(),
                               [&](const spec::TensorAxis &axis) {
                                 return axis.name == name;
                               });
        if (it == t.axes.end())
          fail(atom, "tensor " + t.name + " has no axis '" + name + "'");
        int axis = static_cast<int>(it - t.axes.begin());
        if (std::find(node.axisOrder.begin(), node.axisOrder.end(), axis) !=
            node.axisOrder.end())
          fail(atom, "axis '" + name + "' appears twice in the permutation");
        node.axisOrder.push_back(axis);
      }
      if (node.axisOrder.size() != t.axes.size())
        fail(atom, "the permutation must list all " +
                       std::to_string(t.axes.size()) + " axes of " + t.name);
    }
    return wrap(std::move(node), build(position + 1));
  }

  const Scheme &scheme_;
  const spec::Spec &spec_;
  int vectorWidth_;
  std::vector<std::pair<DimId, int64_t>> bindings_;
};

/// The extent of the outermost U or V loop on the path to the body.
std::vector<int64_t> registerTileOf(const TileNode &root) {
  const TileNode *node = &root;
  while (node->kind != TileNode::Kind::Body) {
    if (node->kind == TileNode::Kind::Loop &&
        (node->loopKind == LoopKind::Unrolled ||
         node->loopKind == LoopKind::Vector))
      return node->extent;
    node = &node->child();
  }
  return node->extent;
}

} // namespace

int vectorLanes(int64_t size, int widest) {
  int lanes = widest;
  while (lanes > 4 && lanes / 2 >= size)
    lanes /= 2;
  return lanes;
}

int searchLanes(int64_t size, int widest, int fullRateLanes) {
  const int lanes = vectorLanes(size, widest);
  if (fullRateLanes < 4 || fullRateLanes >= lanes)
    return lanes;
  auto padded = [&](int64_t width) {
    return (size + width - 1) / width * width;
  };
  // Twice the vectors cost twice the instructions and halve what a register
  // tile covers: worth it where an eighth of the lanes or more would idle.
  return padded(fullRateLanes) * 8 <= padded(lanes) * 7 ? fullRateLanes : lanes;
}

int lanesAlong(const spec::Spec &spec, std::string_view dim, int widest) {
  std::optional<DimId> id = spec.findDim(dim);
  return id ? vectorLanes(spec.dims[*id].size, widest) : widest;
}

int laneCount(const Scheme &scheme, const spec::Spec &spec, int widest) {
  for (size_t position = 0; position < scheme.atoms.size(); ++position)
    if (const auto *vector = std::get_if<VAtom>(&scheme.atoms[position])) {
      if (!vector->lanes)
        return lanesAlong(spec, vector->dim, widest);
      if (vector->lanes < 4 || vector->lanes > widest ||
          std::popcount(static_cast<unsigned>(vector->lanes)) != 1)
        throw Error("atom " + std::to_string(position + 1) + " '" +
                        printAtom(scheme.atoms[position]) +
                        "': the lanes of V must be a power of two from 4 to " +
                        std::to_string(widest) + ", the widest vector here",
                    ErrorCode::InvalidScheme);
      return vector->lanes;
    }
  return widest;
}

TileTree buildTileTree(const Scheme &scheme, const spec::Spec &spec,
                       int vectorWidth) {
  if (vectorWidth <= 0)
    throw Error("vector width must be positive", ErrorCode::Internal);
  vectorWidth = laneCount(scheme, spec, vectorWidth);
  TileTree tree;
  tree.scheme = scheme;
  tree.vectorWidth = vectorWidth;
  tree.root = TreeBuilder(scheme, spec, vectorWidth).build(0);
  tree.registerTile = registerTileOf(tree.root);
  return tree;
}

} // namespace ttile::scheme
