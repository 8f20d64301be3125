// Runs an ONNX model rewritten by ttile-onnx (its convolutions are
// ttile.Conv nodes) through ONNX Runtime's C++ API, with the one addition
// ttile needs: the session options register libttile-onnxruntime.so. Its
// kernels are tuned while the session is created (once per machine: the
// next run finds them in ttile's cache).
//
//   onnxruntime-run MODEL-TTILE.onnx [ORIGINAL.onnx]
//
// With the original model, both run on the same random inputs and the
// program checks that their outputs agree (relative error at most 1e-4).
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

struct Tensors {
  std::vector<std::vector<float>> data;
  std::vector<Ort::Value> values;
};

Ort::Session openSession(Ort::Env &env, const char *path, bool withTtile) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  if (withTtile)
    options.RegisterCustomOpsLibrary(TTILE_ONNXRUNTIME_LIBRARY);
  return Ort::Session(env, path, options);
}

/// Random inputs of the shapes the session declares.
Tensors randomInputs(Ort::Session &session) {
  Tensors inputs;
  std::mt19937 random(42);
  std::normal_distribution<float> normal;
  Ort::MemoryInfo memory =
      Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    std::vector<int64_t> shape =
        session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetShape();
    size_t count = 1;
    for (int64_t extent : shape)
      count *= static_cast<size_t>(extent);
    std::vector<float> &data = inputs.data.emplace_back(count);
    for (float &value : data)
      value = normal(random);
    inputs.values.push_back(Ort::Value::CreateTensor<float>(
        memory, data.data(), count, shape.data(), shape.size()));
  }
  return inputs;
}

std::vector<Ort::Value> run(Ort::Session &session, Tensors &inputs) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<Ort::AllocatedStringPtr> names;
  std::vector<const char *> inputNames, outputNames;
  for (size_t i = 0; i < session.GetInputCount(); ++i)
    inputNames.push_back(
        names.emplace_back(session.GetInputNameAllocated(i, allocator)).get());
  for (size_t i = 0; i < session.GetOutputCount(); ++i)
    outputNames.push_back(
        names.emplace_back(session.GetOutputNameAllocated(i, allocator)).get());
  return session.Run(Ort::RunOptions{}, inputNames.data(), inputs.values.data(),
                     inputNames.size(), outputNames.data(), outputNames.size());
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s MODEL-TTILE.onnx [ORIGINAL.onnx]\n",
                 argv[0]);
    return 2;
  }
  try {
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ttile-example");
    auto start = std::chrono::steady_clock::now();
    Ort::Session session = openSession(env, argv[1], /*withTtile=*/true);
    std::printf("session created in %.2f s (ttile's kernels tuned or "
                "found in its cache)\n",
                seconds(start));
    Tensors inputs = randomInputs(session);
    start = std::chrono::steady_clock::now();
    std::vector<Ort::Value> outputs = run(session, inputs);
    std::printf("ran in %.2f ms\n", seconds(start) * 1e3);
    if (argc == 2)
      return 0;

    Ort::Session stock = openSession(env, argv[2], /*withTtile=*/false);
    std::vector<Ort::Value> expected = run(stock, inputs);
    double worst = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
      size_t count = expected[o].GetTensorTypeAndShapeInfo().GetElementCount();
      const float *want = expected[o].GetTensorData<float>();
      const float *got = outputs[o].GetTensorData<float>();
      double scale = 1e-30, difference = 0;
      for (size_t i = 0; i < count; ++i) {
        scale = std::max(scale, double(std::fabs(want[i])));
        difference = std::max(difference, double(std::fabs(got[i] - want[i])));
      }
      worst = std::max(worst, difference / scale);
    }
    std::printf("largest relative error against stock ONNX Runtime: %.2e\n",
                worst);
    return worst <= 1e-4 ? 0 : 1;
  } catch (const Ort::Exception &error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
