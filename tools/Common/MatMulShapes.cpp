//===- tools/Common/MatMulShapes.cpp - The matmul benchmark sets ----------===//

#include "MatMulShapes.h"

#include <charconv>
#include <string>

namespace ttile::tools {
namespace {

NamedMatMul product(std::string name, int64_t M, int64_t N, int64_t K,
                    int64_t batch = 1, bool transB = false) {
  NamedMatMul named{std::move(name), {}};
  named.params.batch = batch;
  named.params.M = M;
  named.params.N = N;
  named.params.K = K;
  named.params.transB = transB;
  return named;
}

std::string sizes(int64_t M, int64_t N, int64_t K) {
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

std::vector<NamedMatMul> squares() {
  std::vector<NamedMatMul> set;
  for (int64_t n = 64; n <= 2048; n *= 2)
    set.push_back(product("square" + std::to_string(n), n, n, n));
  return set;
}

std::vector<NamedMatMul> polybench() {
  return {product("pb-small", 60, 70, 80), product("pb-medium", 200, 220, 240),
          product("pb-large", 1000, 1100, 1200),
          product("pb-extralarge", 2000, 2300, 2600)};
}

std::vector<NamedMatMul> fig56() {
  std::vector<NamedMatMul> set;
  for (int64_t m = 8; m <= 64; m += 4)
    set.push_back(product("fig56-" + std::to_string(m), m, 128, 128));
  return set;
}

std::vector<NamedMatMul> bert() {
  std::vector<NamedMatMul> set;
  for (int64_t seq : {128, 384}) {
    const std::string prefix = "bert" + std::to_string(seq);
    set.push_back(product(prefix + "-proj", seq, 768, 768));
    set.push_back(product(prefix + "-ffn1", seq, 3072, 768));
    set.push_back(product(prefix + "-ffn2", seq, 768, 3072));
  }
  return set;
}

std::vector<NamedMatMul> attention() {
  std::vector<NamedMatMul> set;
  for (int64_t seq : {128, 384}) {
    const std::string prefix = "attn" + std::to_string(seq);
    set.push_back(product(prefix + "-qk", seq, seq, 64, 12, /*transB=*/true));
    set.push_back(product(prefix + "-pv", seq, 64, seq, 12));
  }
  return set;
}

std::vector<NamedMatMul> teml() {
  return {product("teml-bmm", 72, 72, 26, 8192)};
}

std::vector<NamedMatMul> small() {
  std::vector<NamedMatMul> set;
  for (int64_t m : {4, 13, 32})
    for (int64_t n : {4, 13, 32})
      for (int64_t k : {4, 13, 32})
        set.push_back(product("small-" + sizes(m, n, k), m, n, k));
  for (int64_t n : {8, 16, 23})
    set.push_back(product("small-" + sizes(n, n, n), n, n, n));
  return set;
}

// Products with a vector: matrices times a vector (N = 1), fully connected
// layers on one image (M = 1, the weights N x K transposed: ResNet-18's and
// ResNet-50's classifiers, BERT-base's projection and first FFN layer), both
// dot products, and one vector times a matrix stored K x N.
std::vector<NamedMatMul> vector() {
  return {product("mv-1024x1024", 1024, 1, 1024),
          product("mv-4096x1024", 4096, 1, 1024),
          product("mv-1024x4096", 1024, 1, 4096),
          product("fc-resnet18", 1, 1000, 512, 1, /*transB=*/true),
          product("fc-resnet50", 1, 1000, 2048, 1, /*transB=*/true),
          product("fc-bert-proj", 1, 768, 768, 1, /*transB=*/true),
          product("fc-bert-ffn1", 1, 3072, 768, 1, /*transB=*/true),
          product("vm-1024x1024", 1, 1024, 1024)};
}

struct Set {
  const char *name;
  std::vector<NamedMatMul> (*shapes)();
};
const Set kSets[] = {{"square", squares},      {"polybench", polybench},
                     {"fig56", fig56},         {"bert", bert},
                     {"attention", attention}, {"teml", teml},
                     {"small", small},         {"vector", vector}};

int64_t parsePositive(std::string_view text, std::string_view whole) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1)
    throw Error("matmul '" + std::string(whole) +
                "' is not MxNxK or MxNxK,batch with positive sizes");
  return value;
}

} // namespace

const std::vector<std::string> &matMulSetNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const Set &set : kSets)
      result.push_back(set.name);
    return result;
  }();
  return names;
}

std::vector<NamedMatMul> matMulSet(std::string_view name) {
  std::string known;
  for (const Set &set : kSets) {
    if (set.name == name)
      return set.shapes();
    known += (known.empty() ? "" : ", ") + std::string(set.name);
  }
  throw Error("no matmul set '" + std::string(name) + "'; the sets are " +
              known);
}

NamedMatMul parseMatMul(std::string_view text) {
  std::string_view sizesText = text, batchText;
  if (size_t comma = text.find(','); comma != std::string_view::npos) {
    sizesText = text.substr(0, comma);
    batchText = text.substr(comma + 1);
  }
  int64_t values[3] = {};
  std::string_view rest = sizesText;
  for (int i = 0; i < 3; ++i) {
    size_t x = rest.find('x');
    if ((i < 2) != (x != std::string_view::npos))
      throw Error("matmul '" + std::string(text) +
                  "' is not MxNxK or MxNxK,batch with positive sizes");
    values[i] = parsePositive(rest.substr(0, x), text);
    rest = i < 2 ? rest.substr(x + 1) : std::string_view();
  }
  return product(std::string(text), values[0], values[1], values[2],
                 batchText.empty() ? 1 : parsePositive(batchText, text));
}

} // namespace ttile::tools
