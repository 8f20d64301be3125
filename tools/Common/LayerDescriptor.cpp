//===- tools/Common/LayerDescriptor.cpp - benchdnn-style layers -----------===//

#include "LayerDescriptor.h"

#include "Runtime/ConvParams.h"
#include "ttile/Error.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace ttile::tools {
namespace {

constexpr std::string_view kKeys[] = {"mb", "g",  "ic", "ih", "iw", "oc",
                                      "oh", "ow", "kh", "kw", "sh", "sw",
                                      "ph", "pw", "dh", "dw"};
/// benchdnn's keys for the depth of 3D convolutions.
constexpr std::string_view kDepthKeys[] = {"id", "od", "kd", "sd", "pd", "dd"};

/// The words of an epilogue that take no number, and what they set.
struct PlainActivation {
  std::string_view word;
  Activation activation;
};
constexpr PlainActivation kPlainActivations[] = {
    {"relu", Activation::ReLU},           {"silu", Activation::SiLU},
    {"hardswish", Activation::HardSwish}, {"sigmoid", Activation::Sigmoid},
    {"tanh", Activation::Tanh},
};
constexpr std::string_view kResidualWord = "res";
constexpr std::string_view kClampWord = "clamp";
constexpr std::string_view kLeakyReLUWord = "leakyrelu";
constexpr std::string_view kEpilogueWords =
    "res relu relu6 clamp<lo>:<hi> leakyrelu<a> silu hardswish sigmoid tanh";

bool isKeyLetter(char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::optional<Activation> plainActivation(std::string_view word) {
  for (const PlainActivation &plain : kPlainActivations)
    if (plain.word == word)
      return plain.activation;
  return std::nullopt;
}

bool isEpilogueWord(std::string_view word) {
  return word == kResidualWord || word == kClampWord ||
         word == kLeakyReLUWord || plainActivation(word);
}

/// "0.1" rather than "0.100000001": the shortest text that reads back as
/// the same float.
std::string formatFloat(float value) {
  char buffer[32];
  std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

/// The pairs of a descriptor, its epilogue, and its name if it has one.
class Parser {
public:
  /// `shown` is the text that error messages quote: the whole layer when
  /// `text` is the epilogue after a network layer's name.
  explicit Parser(std::string_view text, std::string_view shown = {})
      : text_(text), shown_(shown.empty() ? text : shown) {}

  void parse() {
    if (text_.empty())
      fail("the descriptor is empty");
    while (position_ < text_.size()) {
      char c = text_[position_];
      if (c == '_')
        ++position_;
      else if (c == 'n')
        parseName();
      else if (isKeyLetter(c))
        parseWord();
      else
        fail(std::string("expected a key such as 'ic' at column ") +
             std::to_string(position_ + 1) + ", got '" + c + "'");
    }
  }

  std::optional<int64_t> value(std::string_view key) const {
    auto found = values_.find(std::string(key));
    if (found == values_.end())
      return std::nullopt;
    return found->second;
  }
  int64_t required(std::string_view key) const {
    std::optional<int64_t> found = value(key);
    if (!found)
      fail("'" + std::string(key) + "' is missing");
    return *found;
  }
  const std::optional<std::string> &name() const { return name_; }
  /// Whether the text held an epilogue and nothing else.
  bool onlyEpilogue() const {
    return values_.empty() && !name_ && (activation_ || residual_);
  }

  /// Sets the epilogue fields of `params` from the words parsed.
  void applyEpilogue(Conv2DParams &params) const {
    params.activation = activation_.value_or(Activation::None);
    params.alpha = alpha_;
    params.beta = beta_;
    params.residual = residual_;
  }

  [[noreturn]] void fail(const std::string &message) const {
    throw Error("layer '" + std::string(shown_) + "': " + message);
  }

private:
  /// n"quoted name" anywhere, or nname to the end of the descriptor.
  void parseName() {
    if (name_)
      fail("the name is given twice");
    ++position_;
    if (position_ < text_.size() && text_[position_] == '"') {
      size_t close = text_.find('"', position_ + 1);
      if (close == std::string_view::npos)
        fail("the name has no closing quote");
      name_ = std::string(text_.substr(position_ + 1, close - position_ - 1));
      position_ = close + 1;
    } else {
      name_ = std::string(text_.substr(position_));
      position_ = text_.size();
      rejectTrailingEpilogue(*name_);
    }
    if (name_->empty())
      fail("the name is empty");
  }

  /// An unquoted name takes the rest of the text, epilogue words included:
  /// "nconv_relu" would be a layer named conv_relu without its ReLU.
  /// So would "nrelu": a layer named relu, with no ReLU at all.
  void rejectTrailingEpilogue(const std::string &name) const {
    if (readsAsEpilogue("_" + name))
      fail("the name '" + name + "' reads as an epilogue: write _" + name +
           " for the epilogue, or quote the name (n\"" + name + "\")");
    size_t underscore = name.rfind('_');
    if (underscore == std::string::npos)
      return;
    std::string_view tail = std::string_view(name).substr(underscore);
    if (readsAsEpilogue(std::string(tail)))
      fail("the name '" + name + "' ends in '" + std::string(tail) +
           "', which reads as an epilogue: give the epilogue before the "
           "name, or quote the name (n\"" +
           name + "\")");
  }

  /// Whether `text` ("_relu", "_res_silu") is an epilogue and nothing else.
  static bool readsAsEpilogue(const std::string &text) {
    Parser epilogue(text);
    try {
      epilogue.parse();
    } catch (const Error &) {
      return false; // Not an epilogue: an ordinary name.
    }
    return epilogue.onlyEpilogue();
  }

  /// A key and its number, or a word of the epilogue.
  void parseWord() {
    size_t wordEnd = position_;
    while (wordEnd < text_.size() && isKeyLetter(text_[wordEnd]))
      ++wordEnd;
    std::string word(text_.substr(position_, wordEnd - position_));
    position_ = wordEnd;
    if (isEpilogueWord(word))
      parseEpilogueWord(word);
    else
      parsePair(word);
  }

  void parsePair(const std::string &key) {
    if (contains(kDepthKeys, key))
      fail("'" + key + "': 3D convolutions are not supported");
    if (!contains(kKeys, key))
      fail("unknown key '" + key +
           "' (keys: mb g ic ih iw oc oh ow kh kw sh sw ph pw dh dw n; "
           "epilogue: " +
           std::string(kEpilogueWords) + ")");
    size_t valueEnd = position_;
    while (valueEnd < text_.size() && isDigit(text_[valueEnd]))
      ++valueEnd;
    if (valueEnd == position_)
      fail("'" + key + "' has no value");
    int64_t value = 0;
    std::from_chars_result result = std::from_chars(
        text_.data() + position_, text_.data() + valueEnd, value);
    if (result.ec != std::errc() || value > runtime::kMaxParam)
      fail("the value of '" + key + "' is larger than 2^31");
    if (!values_.emplace(key, value).second)
      fail("'" + key + "' is given twice");
    position_ = valueEnd;
  }

  void parseEpilogueWord(const std::string &word) {
    if (word == kResidualWord) {
      if (residual_)
        fail("'res' is given twice");
      residual_ = true;
    } else if (word == kClampWord) {
      float lo = parseFloat(word);
      if (position_ >= text_.size() || text_[position_] != ':')
        fail("'clamp' takes two bounds, as in clamp0:6");
      ++position_;
      setActivation(word, Activation::Clamp, lo, parseFloat(word));
    } else if (word == kLeakyReLUWord) {
      setActivation(word, Activation::LeakyReLU, parseFloat(word), 0);
    } else if (word == "relu" && text_.substr(position_, 1) == "6") {
      ++position_;
      setActivation("relu6", Activation::Clamp, 0, 6);
    } else {
      setActivation(word, *plainActivation(word), 0, 0);
    }
    if (position_ < text_.size() &&
        (isDigit(text_[position_]) || text_[position_] == '.' ||
         text_[position_] == '-' || text_[position_] == ':'))
      fail("'" + word + "' is followed by '" +
           std::string(text_.substr(position_, 1)) +
           "': only clamp<lo>:<hi> and leakyrelu<a> take numbers");
  }

  void setActivation(const std::string &word, Activation activation,
                     float alpha, float beta) {
    if (activation_)
      fail("two activations: '" + activationWord_ + "' and '" + word + "'");
    activation_ = activation;
    activationWord_ = word;
    alpha_ = alpha;
    beta_ = beta;
  }

  /// A decimal number such as -1, 0.1 or 6 at the current position.
  float parseFloat(const std::string &word) {
    size_t end = position_;
    if (end < text_.size() && text_[end] == '-')
      ++end;
    while (end < text_.size() && (isDigit(text_[end]) || text_[end] == '.'))
      ++end;
    float value = 0;
    std::from_chars_result result = std::from_chars(
        text_.data() + position_, text_.data() + end, value,
        std::chars_format::fixed);
    if (end == position_ || result.ec != std::errc() ||
        result.ptr != text_.data() + end)
      fail("'" + word + "' needs a number, as in " +
           (word == kClampWord ? "clamp0:6" : "leakyrelu0.1"));
    position_ = end;
    return value;
  }

  std::string_view text_, shown_;
  size_t position_ = 0;
  std::map<std::string, int64_t> values_;
  std::optional<std::string> name_;
  std::optional<Activation> activation_;
  std::string activationWord_;
  float alpha_ = 0, beta_ = 0;
  bool residual_ = false;
};

/// One spatial axis of a descriptor, with benchdnn's defaults applied.
struct Axis {
  int64_t input, kernel, stride, dilation;
  std::optional<int64_t> output, pad;
};

/// Sets the padding of `axis`: see LayerDescriptor.h.
void resolvePadding(const Parser &parser, const Axis &axis, const char *outKey,
                    const char *axisName, int64_t &padBegin, int64_t &padEnd) {
  padBegin = axis.pad.value_or(0);
  padEnd = padBegin;
  // Values out of range are left for ttile::Conv2D to report by name. Every
  // value is at most 2^31 (the parser checks), so nothing below overflows.
  if (!axis.output || *axis.output < 1 || axis.kernel < 1 || axis.stride < 1)
    return;
  int64_t dilatedKernel = (axis.kernel - 1) * axis.dilation + 1;
  int64_t needed = (*axis.output - 1) * axis.stride + dilatedKernel;
  if (!axis.pad)
    padBegin = std::max<int64_t>(0, (needed - axis.input) / 2);
  if (axis.input < 1 || padBegin > runtime::kMaxParam ||
      needed - axis.input - padBegin > runtime::kMaxParam)
    return;
  auto outputWith = [&](int64_t end) {
    return runtime::convOutputExtent(axis.input, padBegin, end, axis.kernel,
                                     axis.stride, axis.dilation, axisName);
  };
  // Symmetric padding when it gives oh, as it usually does.
  padEnd = padBegin;
  if (outputWith(padEnd) == *axis.output)
    return;
  padEnd = std::max<int64_t>(0, needed - axis.input - padBegin);
  int64_t output = outputWith(padEnd);
  if (output != *axis.output)
    parser.fail(std::string(outKey) + " (" + std::to_string(*axis.output) +
                ") does not match the other values, which give " +
                std::to_string(output));
}

} // namespace

NamedLayer parseLayer(std::string_view text) {
  if (std::optional<NamedLayer> known = findNetworkLayer(text))
    return std::move(*known);
  // Network layers are named without '_', so the first one starts the
  // epilogue.
  size_t underscore = text.find('_');
  std::optional<NamedLayer> known =
      underscore == std::string_view::npos
          ? std::nullopt
          : findNetworkLayer(text.substr(0, underscore));
  if (!known)
    return parseLayerDescriptor(text);
  Parser epilogue(text.substr(underscore), text);
  epilogue.parse();
  if (!epilogue.onlyEpilogue())
    epilogue.fail("only an epilogue may follow the name of " + known->name +
                  ", as in " + known->name + "_res_relu");
  epilogue.applyEpilogue(known->params);
  known->name = std::string(text);
  return std::move(*known);
}

std::string epilogueSuffix(const Conv2DParams &params) {
  std::string suffix = params.residual ? "_res" : "";
  switch (params.activation) {
  case Activation::None:
    break;
  case Activation::Clamp:
    suffix += "_clamp" + formatFloat(params.alpha) + ":" +
              formatFloat(params.beta);
    break;
  case Activation::LeakyReLU:
    suffix += "_leakyrelu" + formatFloat(params.alpha);
    break;
  default:
    for (const PlainActivation &plain : kPlainActivations)
      if (plain.activation == params.activation)
        suffix += "_" + std::string(plain.word);
  }
  return suffix;
}

NamedLayer parseLayerDescriptor(std::string_view descriptor) {
  Parser parser(descriptor);
  parser.parse();

  // Width values default to the height ones, as in benchdnn; benchdnn's
  // dilation is the gap between taps, ttile's the distance.
  auto orHeight = [&](const char *width, const char *height) {
    return parser.value(width) ? parser.value(width) : parser.value(height);
  };
  Axis vertical{parser.required("ih"), parser.required("kh"),
                parser.value("sh").value_or(1),
                parser.value("dh").value_or(0) + 1, parser.value("oh"),
                parser.value("ph")};
  Axis horizontal{orHeight("iw", "ih").value(), orHeight("kw", "kh").value(),
                  orHeight("sw", "sh").value_or(1),
                  orHeight("dw", "dh").value_or(0) + 1, orHeight("ow", "oh"),
                  orHeight("pw", "ph")};

  NamedLayer layer;
  layer.name = parser.name().value_or(std::string(descriptor));
  Conv2DParams &p = layer.params;
  p.N = parser.value("mb").value_or(1);
  p.groups = parser.value("g").value_or(1);
  p.C = parser.required("ic");
  p.K = parser.required("oc");
  p.H = vertical.input;
  p.W = horizontal.input;
  p.R = vertical.kernel;
  p.S = horizontal.kernel;
  p.strideH = vertical.stride;
  p.strideW = horizontal.stride;
  p.dilationH = vertical.dilation;
  p.dilationW = horizontal.dilation;
  resolvePadding(parser, vertical, "oh", "H", p.padTop, p.padBottom);
  resolvePadding(parser, horizontal, "ow", "W", p.padLeft, p.padRight);
  parser.applyEpilogue(p);
  return layer;
}

} // namespace ttile::tools
