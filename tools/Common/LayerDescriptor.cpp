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

bool isKeyLetter(char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

/// The pairs of a descriptor, and its name if it has one.
class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

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
        parsePair();
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

  [[noreturn]] void fail(const std::string &message) const {
    throw Error("layer '" + std::string(text_) + "': " + message);
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
    }
    if (name_->empty())
      fail("the name is empty");
  }

  void parsePair() {
    size_t keyEnd = position_;
    while (keyEnd < text_.size() && isKeyLetter(text_[keyEnd]))
      ++keyEnd;
    std::string key(text_.substr(position_, keyEnd - position_));
    if (contains(kDepthKeys, key))
      fail("'" + key + "': 3D convolutions are not supported");
    if (!contains(kKeys, key))
      fail("unknown key '" + key +
           "' (keys: mb g ic ih iw oc oh ow kh kw sh sw ph pw dh dw n)");
    size_t valueEnd = keyEnd;
    while (valueEnd < text_.size() && isDigit(text_[valueEnd]))
      ++valueEnd;
    if (valueEnd == keyEnd)
      fail("'" + key + "' has no value");
    int64_t value = 0;
    std::from_chars_result result =
        std::from_chars(text_.data() + keyEnd, text_.data() + valueEnd, value);
    if (result.ec != std::errc() || value > runtime::kMaxParam)
      fail("the value of '" + key + "' is larger than 2^31");
    if (!values_.emplace(key, value).second)
      fail("'" + key + "' is given twice");
    position_ = valueEnd;
  }

  std::string_view text_;
  size_t position_ = 0;
  std::map<std::string, int64_t> values_;
  std::optional<std::string> name_;
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
  std::optional<NamedLayer> known = findNetworkLayer(text);
  return known ? std::move(*known) : parseLayerDescriptor(text);
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
  return layer;
}

} // namespace ttile::tools
