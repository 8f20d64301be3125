//===- ttile-params-fuzzer.cpp - Fuzz the validation of conv parameters ---===//
//
// Decodes the input into a ttile_conv2d_params (every field, the
// enumerations included, from ordinary sizes to the extremes of its type;
// decodeField says how) and calls ttile_conv2d_create, which validates it and
// builds the object; nothing is compiled, tuned or run, so each input takes
// microseconds. For any input:
//
//   - the call returns TTILE_OK or TTILE_INVALID_ARGUMENT: never another
//     status (TTILE_INTERNAL would be a bug or an allocation that failed),
//     never a crash, a sanitizer report or an allocation libFuzzer finds
//     too large (-malloc_limit_mb);
//   - a refusal leaves *out null and explains itself: "ttile_conv2d_create:
//     " followed by the field it names ("K (0) ...", "groups (3) ...") or
//     the quantity that is too large ("the weights ...", "dilated kernel
//     ...");
//   - an acceptance holds what the documentation promises, recomputed here
//     in 128-bit arithmetic: every field in its range, the output size of
//     ONNX's formula, no tensor above 2^40 elements and no work above 2^61
//     multiply-adds.
//
// The same parameters then go to ttile_conv2d_pair_create as the second
// convolution of a pair (after a 1x1 expansion into their channels), whose
// planning must stay as short whatever the sizes: accepted only where the
// convolution was, with its output size, or refused as the pair.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"
#include "ttile/ttile.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

namespace {

using namespace ttile::fuzz;

using Field = IntegerField<ttile_conv2d_params>;
constexpr Field kFields[] = {
    {"N", &ttile_conv2d_params::N, 1},
    {"C", &ttile_conv2d_params::C, 1},
    {"H", &ttile_conv2d_params::H, 1},
    {"W", &ttile_conv2d_params::W, 1},
    {"K", &ttile_conv2d_params::K, 1},
    {"R", &ttile_conv2d_params::R, 1},
    {"S", &ttile_conv2d_params::S, 1},
    {"strideH", &ttile_conv2d_params::strideH, 1},
    {"strideW", &ttile_conv2d_params::strideW, 1},
    {"padTop", &ttile_conv2d_params::padTop, 0},
    {"padLeft", &ttile_conv2d_params::padLeft, 0},
    {"padBottom", &ttile_conv2d_params::padBottom, 0},
    {"padRight", &ttile_conv2d_params::padRight, 0},
    {"dilationH", &ttile_conv2d_params::dilationH, 1},
    {"dilationW", &ttile_conv2d_params::dilationW, 1},
    {"groups", &ttile_conv2d_params::groups, 1},
};

std::string describe(const ttile_conv2d_params &p) {
  return describeFields<ttile_conv2d_params>(p, kFields) +
         "layout=" + std::to_string(p.layout) +
         " activation=" + std::to_string(p.activation) +
         " alpha=" + std::to_string(p.alpha) +
         " beta=" + std::to_string(p.beta) +
         " residual=" + std::to_string(p.residual);
}

/// ONNX's output extent, or 0 when the dilated kernel does not fit.
Wide outputExtent(Wide input, Wide padBegin, Wide padEnd, Wide kernel,
                  Wide stride, Wide dilation) {
  Wide padded = input + padBegin + padEnd;
  Wide dilatedKernel = dilation * (kernel - 1) + 1;
  return dilatedKernel > padded ? 0 : (padded - dilatedKernel) / stride + 1;
}

/// What the documentation promises of accepted parameters; a broken
/// promise, or none when all hold.
const char *brokenPromise(const ttile_conv2d_params &p, const ttile_conv2d *conv) {
  for (const Field &field : kFields)
    if (p.*field.member < field.least || p.*field.member > kLargestField)
      return "a field out of range was accepted";
  if (p.layout < TTILE_LAYOUT_NHWC || p.layout > TTILE_LAYOUT_NCHW_TO_NHWC)
    return "a layout out of range was accepted";
  if (p.activation < TTILE_ACTIVATION_NONE ||
      p.activation > TTILE_ACTIVATION_TANH)
    return "an activation out of range was accepted";
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta))
    return "a non-finite alpha or beta was accepted";
  if (p.activation == TTILE_ACTIVATION_CLAMP && p.alpha > p.beta)
    return "a Clamp with alpha > beta was accepted";
  Wide outH = outputExtent(p.H, p.padTop, p.padBottom, p.R, p.strideH,
                           p.dilationH);
  Wide outW = outputExtent(p.W, p.padLeft, p.padRight, p.S, p.strideW,
                           p.dilationW);
  if (outH == 0 || outW == 0)
    return "a kernel larger than the padded input was accepted";
  if (ttile_conv2d_out_h(conv) != outH || ttile_conv2d_out_w(conv) != outW)
    return "the output size is not ONNX's";
  if (p.C % p.groups != 0 || p.K % p.groups != 0)
    return "groups that do not divide the channels were accepted";
  Wide groupChannels = p.C / p.groups;
  // Each factor is at most 2^32 here, so partial products stop growing
  // long before a 128-bit overflow once they pass the limit.
  auto tooLarge = [](std::initializer_list<Wide> factors, Wide limit) {
    Wide product = 1;
    for (Wide factor : factors) {
      product *= factor;
      if (product > limit)
        return true;
    }
    return false;
  };
  if (tooLarge({p.N, p.H, p.W, p.C}, kLargestTensor))
    return "an input above 2^40 elements was accepted";
  if (tooLarge({p.R, p.S, groupChannels, p.K}, kLargestTensor))
    return "weights above 2^40 elements were accepted";
  if (tooLarge({p.N, outH, outW, p.K}, kLargestTensor))
    return "an output above 2^40 elements was accepted";
  if (tooLarge({p.N, outH, outW, p.K, groupChannels, p.R, p.S},
               kMostMultiplyAdds))
    return "work above 2^61 multiply-adds was accepted";
  return nullptr;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  // Every field starts at a small valid layer (8 to 16 channels, 10x10,
  // 3x3, padding 1), so that a seed of a few bytes changes one field.
  ttile_conv2d_params params;
  ttile_conv2d_params_init(&params);
  params.C = 8;
  params.H = params.W = 10;
  params.K = 16;
  params.R = params.S = 3;
  params.padTop = params.padLeft = params.padBottom = params.padRight = 1;
  Reader input(bytes, size);
  for (const Field &field : kFields)
    params.*field.member = decodeField(input, params.*field.member);
  // Enumerations: an odd control byte, then any int32_t.
  if (input.byte() % 2)
    params.layout = input.integer<int32_t>();
  if (input.byte() % 2)
    params.activation = input.integer<int32_t>();
  // The epilogue's parameters: any float bits, and any residual flag.
  for (float *parameter : {&params.alpha, &params.beta})
    if (input.byte() % 2)
      *parameter = std::bit_cast<float>(input.integer<uint32_t>());
  if (input.byte() % 2)
    params.residual = input.integer<int32_t>();

  ttile_conv2d *conv = reinterpret_cast<ttile_conv2d *>(&params);
  ttile_status status = ttile_conv2d_create(&params, &conv);
  checkCreation(
      "params", status, conv, describe(params),
      [&](ttile_conv2d *created) { return brokenPromise(params, created); },
      [](std::string_view message) {
        return namesItsSubject<ttile_conv2d_params>(
            message, "ttile_conv2d_create", kFields,
            {"layout (", "activation (", "alpha (", "beta (",
             "Clamp's alpha (", "dilated kernel (", "the "});
      },
      ttile_conv2d_destroy);

  // The same parameters as the second of a pair, after an expansion from
  // 4 channels to theirs: accepted with the convolution's output size, or
  // refused as the pair (its rules, or the convolution's, prefixed).
  ttile_conv2d_params expansion;
  ttile_conv2d_params_init(&expansion);
  expansion.N = params.N;
  expansion.C = 4;
  expansion.H = params.H;
  expansion.W = params.W;
  expansion.K = params.C;
  expansion.layout = params.layout;
  const bool convAccepted = status == TTILE_OK;
  ttile_conv2d_pair *pair = reinterpret_cast<ttile_conv2d_pair *>(&params);
  status = ttile_conv2d_pair_create(&expansion, &params, &pair);
  checkCreation(
      "pair", status, pair, describe(params),
      [&](ttile_conv2d_pair *created) -> const char * {
        if (!convAccepted)
          return "a pair of a refused convolution was accepted";
        return ttile_conv2d_pair_out_h(created) ==
                           outputExtent(params.H, params.padTop,
                                        params.padBottom, params.R,
                                        params.strideH, params.dilationH) &&
                       ttile_conv2d_pair_out_w(created) ==
                           outputExtent(params.W, params.padLeft,
                                        params.padRight, params.S,
                                        params.strideW, params.dilationW) &&
                       ttile_conv2d_pair_band_rows(created) >= 1
                   ? nullptr
                   : "the pair's output is not the convolution's";
      },
      [](std::string_view message) {
        return message.starts_with("ttile_conv2d_pair_create: Conv2DPair: ");
      },
      ttile_conv2d_pair_destroy);
  return 0;
}
