//===- tools/Common/ProblemOptions.cpp - Problems on the command line -----===//

#include "ProblemOptions.h"

#include "Spec/SpecBuilders.h"

#include <charconv>
#include <map>
#include <optional>
#include <vector>

namespace ttile::tools {

void usageError(const std::string &option, const std::string &message) {
  throw CLI::ValidationError(option, message);
}

namespace {

/// An integer of at least `least` (0 or 1).
int64_t parseInteger(const std::string &option, std::string_view text,
                     int64_t least = 1) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value);
  if (error != std::errc() || end != text.data() + text.size() || value < least)
    usageError(option, "'" + std::string(text) + "' is not a " +
                           (least == 0 ? "non-negative" : "positive") +
                           " integer");
  return value;
}

std::vector<std::string_view> splitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  while (true) {
    size_t comma = text.find(',');
    items.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos)
      return items;
    text.remove_prefix(comma + 1);
  }
}

/// "128,128,64": between `least` and `most` positive integers.
std::vector<int64_t> parseList(const std::string &option,
                               std::string_view text, size_t least,
                               size_t most) {
  std::vector<int64_t> values;
  for (std::string_view item : splitCommas(text))
    values.push_back(parseInteger(option, item));
  if (values.size() < least || values.size() > most)
    usageError(option, "expected " + std::to_string(least) +
                           (least == most ? "" : " to " + std::to_string(most)) +
                           " comma-separated values, got " +
                           std::to_string(values.size()));
  return values;
}

/// "i=4,j=8": names with values of at least `least`, each name at most once.
std::map<std::string, int64_t> parseAssignments(const std::string &option,
                                                std::string_view text,
                                                int64_t least = 1) {
  std::map<std::string, int64_t> values;
  for (std::string_view item : splitCommas(text)) {
    size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0)
      usageError(option, "expected name=value, got '" + std::string(item) + "'");
    std::string name(item.substr(0, equals));
    if (!values
             .emplace(name, parseInteger(option, item.substr(equals + 1), least))
             .second)
      usageError(option, "'" + name + "' is given twice");
  }
  return values;
}

float parseFloat(const std::string &option, std::string_view text) {
  float value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value);
  if (error != std::errc() || end != text.data() + text.size())
    usageError(option, "'" + std::string(text) + "' is not a number");
  return value;
}

/// --epilogue "bias,res,leakyrelu=0.1": sets the bias, residual and
/// activation of `shape`; clamp takes both bounds, clamp=0:6.
void applyEpilogue(const std::string &text, spec::ConvShape &shape) {
  const std::string option = "--epilogue";
  if (text.empty())
    return;
  for (std::string_view item : splitCommas(text)) {
    if (item == "bias") {
      shape.bias = true;
      continue;
    }
    if (item == "res") {
      shape.residual = true;
      continue;
    }
    size_t equals = item.find('=');
    std::optional<spec::Activation> activation =
        spec::activationFromName(item.substr(0, equals));
    if (!activation)
      usageError(option, "unknown item '" + std::string(item) +
                             "' (bias, res, or an activation: relu, clamp, "
                             "leakyrelu, silu, hardswish, sigmoid, tanh)");
    shape.epilogue.activation = *activation;
    std::string_view values =
        equals == std::string_view::npos ? "" : item.substr(equals + 1);
    if (shape.epilogue.usesAlpha() != !values.empty())
      usageError(option, shape.epilogue.usesAlpha()
                             ? "'" + std::string(item) +
                                   "' needs its parameters: leakyrelu=0.1, "
                                   "clamp=0:6"
                             : "'" + std::string(item) + "' takes none");
    if (values.empty())
      continue;
    size_t colon = values.find(':');
    if ((colon != std::string_view::npos) != shape.epilogue.usesBeta())
      usageError(option, "clamp takes two bounds (clamp=0:6), leakyrelu "
                         "one slope (leakyrelu=0.1)");
    shape.epilogue.alpha = parseFloat(option, values.substr(0, colon));
    if (colon != std::string_view::npos)
      shape.epilogue.beta = parseFloat(option, values.substr(colon + 1));
  }
}

spec::Spec convSpec(const ProblemOptions &options) {
  std::vector<int64_t> v = parseList("--conv", options.conv, 4, 5);
  spec::ConvShape shape;
  shape.K = v[0];
  shape.C = v[1];
  shape.outH = shape.outW = v[2];
  shape.R = shape.S = v[3];
  if (v.size() == 5)
    shape.strideH = shape.strideW = v[4];
  applyEpilogue(options.epilogue, shape);
  return spec::conv2d(shape);
}

spec::Spec convFullSpec(const ProblemOptions &options) {
  spec::ConvShape shape;
  int64_t planar = 0, planarInput = 0;
  const std::map<std::string, int64_t *> fields{
      {"N", &shape.N},          {"K", &shape.K},
      {"C", &shape.C},          {"outH", &shape.outH},
      {"outW", &shape.outW},    {"R", &shape.R},
      {"S", &shape.S},          {"sh", &shape.strideH},
      {"sw", &shape.strideW},   {"dh", &shape.dilationH},
      {"dw", &shape.dilationW}, {"g", &shape.groups},
      {"pt", &shape.padTop},    {"pl", &shape.padLeft},
      {"pb", &shape.padBottom}, {"pr", &shape.padRight},
      {"planar", &planar},      {"planarinput", &planarInput}};
  // Paddings may be 0; spec::conv2d names any other field that is not >= 1.
  for (const auto &[name, value] :
       parseAssignments("--conv-full", options.convFull, 0)) {
    auto field = fields.find(name);
    if (field == fields.end())
      usageError("--conv-full", "unknown field '" + name +
                                    "' (fields: N, K, C, outH, outW, R, S, "
                                    "sh, sw, dh, dw, g, pt, pl, pb, pr, "
                                    "planar, planarinput)");
    *field->second = value;
  }
  shape.planar = planar != 0;
  shape.planarInput = planarInput != 0;
  applyEpilogue(options.epilogue, shape);
  return spec::conv2d(shape);
}

spec::Spec einsumSpec(const ProblemOptions &options) {
  if (options.sizes.empty())
    usageError("--einsum", "needs --sizes, e.g. --sizes i=4,j=8,k=16");
  std::map<char, int64_t> sizes;
  for (const auto &[name, value] : parseAssignments("--sizes", options.sizes)) {
    if (name.size() != 1)
      usageError("--sizes", "'" + name + "' is not a single letter");
    sizes[name[0]] = value;
  }
  return spec::contraction(options.einsum, sizes);
}

} // namespace

void ProblemOptions::addTo(CLI::App &app) {
  auto *convOption = app.add_option("--conv", conv,
                                    "2D convolution K,C,outH,R[,stride]: "
                                    "square output outH=outW, square window "
                                    "R=S, batch 1");
  auto *convFullOption = app.add_option(
      "--conv-full", convFull,
      "2D convolution with every field: \"N=1,K=..,C=..,outH=..,outW=..,R=..,"
      "S=..,sh=..,sw=..,dh=..,dw=..,g=..,pt=..,pl=..,pb=..,pr=..\" (outH, "
      "outW: the output; K, C: all channels; omitted paddings are 0, other "
      "fields 1; planar=1: a depthwise convolution in NCHW; planarinput=1: "
      "the input alone NCHW)");
  auto *matmulOption =
      app.add_option("--matmul", matmul, "matrix multiplication I,J,K");
  auto *einsumOption = app.add_option(
      "--einsum", einsum, "tensor contraction, e.g. \"ik,kj->ij\"");
  app.add_option("--sizes", sizes,
                 "sizes of the --einsum letters, e.g. i=4,j=8,k=16")
      ->needs(einsumOption);
  app.add_option("--constant", constants,
                 "an input tensor whose values are constant (e.g. W), which "
                 "the kernel reads laid out ahead for its Pack; repeatable")
      ->allow_extra_args(false); // A scheme may follow: it is not a tensor.
  app.add_option("--epilogue", epilogue,
                 "of a convolution, comma-separated: bias, res (a residual) "
                 "and an activation: relu, clamp=LO:HI, leakyrelu=A, silu, "
                 "hardswish, sigmoid, tanh")
      ->excludes(matmulOption, einsumOption);
  convOption->excludes(convFullOption, matmulOption, einsumOption);
  convFullOption->excludes(matmulOption, einsumOption);
  matmulOption->excludes(einsumOption);
}

namespace {

std::optional<spec::Spec> problemSpec(const ProblemOptions &options) {
  if (!options.conv.empty())
    return convSpec(options);
  if (!options.convFull.empty())
    return convFullSpec(options);
  if (!options.matmul.empty()) {
    std::vector<int64_t> v = parseList("--matmul", options.matmul, 3, 3);
    return spec::matmul(v[0], v[1], v[2]);
  }
  if (!options.einsum.empty())
    return einsumSpec(options);
  return std::nullopt;
}

} // namespace

std::optional<spec::Spec> ProblemOptions::spec() const {
  std::optional<spec::Spec> spec = problemSpec(*this);
  if (!spec || constants.empty())
    return spec;
  for (const std::string &name : constants) {
    std::optional<int> tensor = spec->findTensor(name);
    if (!tensor)
      usageError("--constant", "the problem has no tensor '" + name + "'");
    spec->tensors[*tensor].constant = true;
  }
  spec->verify();
  return spec;
}

} // namespace ttile::tools
