//===- Scheme/Footprint.cpp - Footprints per level of a scheme ------------===//

#include "Scheme/Footprint.h"

#include "Scheme/SchemeParser.h"

#include <algorithm>
#include <string>

namespace ttile::scheme {
namespace {

/// Walks the tile tree outermost first, emitting one row per atom. Below a
/// Lambda, the nest is walked once per part, so that each part's rows carry
/// its own tiles and repetitions. Without the scheme, rows are labelled by
/// atom number only.
class TableBuilder {
public:
  TableBuilder(const Scheme &scheme, const spec::Spec &spec)
      : scheme_(scheme), spec_(spec) {}

  std::vector<FootprintRow> build(const TileNode &root) {
    visit(root, 1);
    return std::move(rows_);
  }

private:
  void addRow(const TileNode &node, int64_t iterationsAbove) {
    FootprintRow row;
    row.atom = node.atom;
    row.label = printAtom(scheme_.atoms[node.atom]);
    if (!parts_.empty()) {
      std::string parts;
      for (const std::string &part : parts_)
        parts += (parts.empty() ? "" : ", ") + part;
      row.label += " [" + parts + "]";
    }
    for (int t = 0; t < static_cast<int>(spec_.tensors.size()); ++t)
      row.footprint.push_back(tensorFootprint(spec_, t, node.extent));
    row.iterationsAbove = iterationsAbove;
    rows_.push_back(std::move(row));
  }

  /// "part 2: h=12".
  std::string partLabel(const TileNode &sequence, size_t part) const {
    const auto &lambda = std::get<LambdaAtom>(scheme_.atoms[sequence.atom]);
    return "part " + std::to_string(part + 1) + ": " + lambda.dim + "=" +
           std::to_string(lambda.parts[part].second);
  }

  void visit(const TileNode &node, int64_t iterationsAbove) {
    switch (node.kind) {
    case TileNode::Kind::Body:
      return;
    case TileNode::Kind::Hoist:
    case TileNode::Kind::Pack:
      addRow(node, iterationsAbove);
      visit(node.child(), iterationsAbove);
      return;
    case TileNode::Kind::Loop: {
      addRow(node, iterationsAbove);
      int64_t trips = 1;
      for (const auto &loop : node.loops)
        trips *= loop.second;
      visit(node.child(), iterationsAbove * trips);
      return;
    }
    case TileNode::Kind::Sequence: {
      // One row for the Lambda as a whole; its part loops are not atoms of
      // their own, so the nest below each part is visited directly.
      addRow(node, iterationsAbove);
      for (size_t i = 0; i < node.children.size(); ++i) {
        const TileNode &part = node.children[i];
        parts_.push_back(partLabel(node, i));
        visit(part.child(), iterationsAbove * part.loops.front().second);
        parts_.pop_back();
      }
      return;
    }
    }
  }

  const Scheme &scheme_;
  const spec::Spec &spec_;
  std::vector<FootprintRow> rows_;
  /// "part 2: h=12" for each Lambda enclosing the current node.
  std::vector<std::string> parts_;
};

} // namespace

int64_t axisSpan(const spec::TensorAxis &axis,
                 const std::vector<int64_t> &tile) {
  int64_t span = 1;
  for (const spec::AffineExpr::Term &term : axis.index.terms)
    span += term.coeff * (tile[term.dim] - 1);
  return span;
}

int64_t tensorFootprint(const spec::Spec &spec, int tensor,
                        const std::vector<int64_t> &tile) {
  int64_t elements = 1;
  for (const spec::TensorAxis &axis : spec.tensors[tensor].axes)
    elements *= std::min(axisSpan(axis, tile), axis.extent);
  return elements;
}

int64_t footprintBytes(const spec::Spec &spec,
                       const std::vector<int64_t> &tile) {
  int64_t bytes = 0;
  for (int t = 0; t < static_cast<int>(spec.tensors.size()); ++t)
    bytes += tensorFootprint(spec, t, tile) *
             spec::elementSize(spec.tensors[t].type);
  return bytes;
}

std::vector<FootprintRow> footprintTable(const TileTree &tree,
                                         const spec::Spec &spec) {
  return TableBuilder(tree.scheme, spec).build(tree.root);
}

std::string formatFootprintTable(const std::vector<FootprintRow> &rows,
                                 const spec::Spec &spec) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header{"atom"};
  for (const spec::Tensor &tensor : spec.tensors)
    header.push_back(tensor.name);
  header.push_back("iterations");
  cells.push_back(header);
  for (const FootprintRow &row : rows) {
    std::vector<std::string> line{row.label};
    for (int64_t elements : row.footprint)
      line.push_back(std::to_string(elements));
    line.push_back(std::to_string(row.iterationsAbove));
    cells.push_back(std::move(line));
  }

  std::vector<size_t> widths(header.size(), 0);
  for (const auto &line : cells)
    for (size_t column = 0; column < line.size(); ++column)
      widths[column] = std::max(widths[column], line[column].size());

  // The label column is left-aligned, the numbers right-aligned.
  std::string text;
  for (const auto &line : cells) {
    std::string out = line[0] + std::string(widths[0] - line[0].size(), ' ');
    for (size_t column = 1; column < line.size(); ++column)
      out += "  " + std::string(widths[column] - line[column].size(), ' ') +
             line[column];
    text += out + "\n";
  }
  return text;
}

} // namespace ttile::scheme
