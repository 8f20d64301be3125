//===- Runtime/Conv2DPair.cpp - Two convolutions, band by band ------------===//
//
// A facade over Conv2Ds: one of the first convolution for each row count a
// band computes, one of the second for a band's window (BandPlan.h). Each
// task runs a group of bands on a window buffer of its thread; the Conv2Ds
// of a band run their own parallel loops in turn on that thread, since the
// tasks already occupy every worker.
//
//===----------------------------------------------------------------------===//

#include "Runtime/BandPlan.h"
#include "Runtime/BufferChecks.h"
#include "Runtime/CombinedTuneInfo.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/ThreadBuffers.h"
#include "Support/Host.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

#include <atomic>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <vector>

namespace ttile {
namespace {

/// `params` for a band: one image, constant weights.
Conv2DParams bandParams(Conv2DParams params) {
  params.N = 1;
  params.constantWeights = true;
  return params;
}

/// What the whole convolutions give the pair: the second's output size,
/// and the work of both.
struct PairSizes {
  int64_t outH = 0, outW = 0, flops = 0;
};

/// Checks the rules of the pair that Conv2D does not know, then each
/// convolution as Conv2D() does.
PairSizes checkedPair(const Conv2DParams &first, const Conv2DParams &second) {
  auto refuse = [](const std::string &why) {
    throw Error("Conv2DPair: " + why);
  };
  if (first.layout != Layout::NHWC || second.layout != Layout::NHWC)
    refuse("both convolutions must be NHWC (layout)");
  if (first.R != 1 || first.S != 1 || first.strideH != 1 ||
      first.strideW != 1 || first.padTop != 0 || first.padLeft != 0 ||
      first.padBottom != 0 || first.padRight != 0)
    refuse("the first convolution must be pointwise: R = S = 1, stride 1, "
           "no padding (it has R=" +
           std::to_string(first.R) + " S=" + std::to_string(first.S) +
           " strides " + std::to_string(first.strideH) + "," +
           std::to_string(first.strideW) + ")");
  if (first.residual)
    refuse("the first convolution cannot add a residual (residual)");
  if (second.N != first.N || second.C != first.K || second.H != first.H ||
      second.W != first.W)
    refuse("the second convolution's input (N=" + std::to_string(second.N) +
           " C=" + std::to_string(second.C) + " H=" + std::to_string(second.H) +
           " W=" + std::to_string(second.W) +
           ") must be the first's output (N=" + std::to_string(first.N) +
           " K=" + std::to_string(first.K) + " H=" + std::to_string(first.H) +
           " W=" + std::to_string(first.W) + ")");
  auto check = [](const Conv2DParams &params, const char *which) {
    try {
      Conv2DParams constant = params;
      constant.constantWeights = true;
      return Conv2D(constant);
    } catch (const Error &error) {
      throw Error(std::string("Conv2DPair: the ") + which +
                      " convolution: " + error.what(),
                  error.code());
    }
  };
  const Conv2D whole = check(first, "first");
  const Conv2D full = check(second, "second");
  return {full.outH(), full.outW(), whole.flops() + full.flops()};
}

/// Runs tasks in turn on the calling thread (RunArgs::parallelFor).
void inTurn(int64_t tasks, const std::function<void(int64_t)> &task) {
  for (int64_t i = 0; i < tasks; ++i)
    task(i);
}

int64_t bandBufferBytes() {
  const auto &caches = host().dataCaches;
  // Half the L2: the band's inputs, weights and output share it.
  return caches.size() > 1 ? caches[1].bytes / 2 : int64_t{256} << 10;
}

/// The bands of the second convolution, `outH` rows high, for the workers.
runtime::BandPlan planBands(const Conv2DParams &first,
                            const Conv2DParams &second, int64_t outH) {
  const runtime::BandGeometry geometry{
      first.N,        second.H,         outH,         second.R,
      second.strideH, second.dilationH, second.padTop};
  const int64_t rowBytes = first.W * first.K * int64_t(sizeof(float));
  return runtime::BandPlan(geometry,
                           runtime::BandPlan::chooseBandRows(geometry, rowBytes,
                                                             bandBufferBytes(),
                                                             workerCount()),
                           workerCount());
}

} // namespace

struct Conv2DPair::Impl {
  Impl(const Conv2DParams &firstParams, const Conv2DParams &secondParams)
      : first(firstParams), second(secondParams),
        sizes(checkedPair(first, second)),
        plan(planBands(first, second, sizes.outH)),
        secondBand(secondBandParams()) {
    first.constantWeights = second.constantWeights = true;
    for (const auto &[rows, calls] : plan.firstCalls()) {
      Conv2DParams band = bandParams(first);
      band.H = rows;
      firstBands.emplace(rows, Conv2D(band));
    }
  }

  Conv2DParams secondBandParams() const {
    Conv2DParams band = bandParams(second);
    band.H = plan.window();
    band.padTop = band.padBottom = 0;
    return band;
  }

  int64_t rowFloats() const { return first.W * first.K; }
  int64_t inputElements() const {
    return first.N * first.H * first.W * first.C;
  }
  int64_t outputElements() const {
    return second.N * sizes.outH * sizes.outW * second.K;
  }

  void runGroup(int64_t task, const Conv2DPairRunArgs &args) const {
    const int64_t begin = plan.groupBegin(task);
    const int64_t rowFloats = this->rowFloats();
    float *window = runtime::threadBuffer(runtime::ThreadBufferSlot::PairWindow,
                                          plan.window() * rowFloats);
    const int64_t outputBandFloats = plan.bandRows() * sizes.outW * second.K;
    for (int64_t index = begin; index < plan.groupBegin(task + 1); ++index) {
      runtime::BandStep band = plan.step(index, begin);
      if (band.keepsOverlap)
        std::memmove(window, window + plan.steadyRows() * rowFloats,
                     size_t(band.firstNew * rowFloats) * sizeof(float));
      auto zeroRows = [&](int64_t from, int64_t to) {
        if (from < to)
          std::memset(window + from * rowFloats, 0,
                      size_t((to - from) * rowFloats) * sizeof(float));
      };
      zeroRows(band.firstNew, band.computedBegin);
      zeroRows(band.computedEnd, plan.window());
      const float *image =
          args.input + band.image * first.H * first.W * first.C;
      for (int64_t row = band.computedBegin; row < band.computedEnd;) {
        const int64_t rows =
            std::min(plan.steadyRows(), band.computedEnd - row);
        RunArgs piece;
        piece.input = image + (band.top + row) * first.W * first.C;
        piece.bias = args.firstBias;
        piece.output = window + row * rowFloats;
        piece.parallelFor = inTurn;
        firstBands.at(rows).run(piece);
        row += rows;
      }
      // Bands of all images follow each other in the output, as in `index`.
      const int64_t outputOffset = index * outputBandFloats;
      RunArgs last;
      last.input = window;
      last.bias = args.secondBias;
      last.residual = args.residual ? args.residual + outputOffset : nullptr;
      last.output = args.output + outputOffset;
      last.parallelFor = inTurn;
      secondBand.run(last);
    }
  }

  void run(const Conv2DPairRunArgs &args) const {
    if (!weightsSet.load(std::memory_order_acquire))
      throw Error("Conv2DPair: give the weights to setWeights() before run()");
    runtime::RunShape shape{inputElements(),  0,    second.K,
                            outputElements(), true, second.residual};
    runtime::checkRunBuffers(shape, {args.input, nullptr, args.secondBias,
                                     args.residual, args.output});
    if (args.firstBias) {
      runtime::checkBuffer(args.firstBias, "firstBias");
      if (runtime::buffersOverlap(args.firstBias, first.K, args.output,
                                  outputElements()))
        runtime::refuseBuffer(runtime::BrokenRule::Overlap, shape, "firstBias",
                              args.firstBias);
    }
    ScopedTaskRunner engineThreads(args.parallelFor);
    if (plan.tasks() == 1)
      return runGroup(0, args);
    struct Tasks {
      const Impl *pair;
      const Conv2DPairRunArgs *args;
      std::mutex failed;
      std::exception_ptr failure;
    } tasks{this, &args, {}, nullptr};
    ttile_parallel_for(
        [](void *context, int64_t task, int64_t) {
          auto &all = *static_cast<Tasks *>(context);
          try {
            all.pair->runGroup(task, *all.args);
          } catch (...) {
            std::lock_guard lock(all.failed);
            if (!all.failure)
              all.failure = std::current_exception();
          }
        },
        &tasks, plan.tasks());
    if (tasks.failure)
      std::rethrow_exception(tasks.failure);
  }

  Conv2DParams first, second;
  const PairSizes sizes;
  const runtime::BandPlan plan;
  /// The first convolution on each row count of plan.firstCalls().
  std::map<int64_t, Conv2D> firstBands;
  Conv2D secondBand;
  std::atomic<bool> weightsSet{false};
};

Conv2DPair::Conv2DPair(const Conv2DParams &first, const Conv2DParams &second)
    : impl_(runtime::withOutOfMemoryAsError("Conv2DPair()", [&] {
        return std::make_unique<Impl>(first, second);
      })) {}
Conv2DPair::~Conv2DPair() = default;
Conv2DPair::Conv2DPair(Conv2DPair &&other) noexcept = default;
Conv2DPair &Conv2DPair::operator=(Conv2DPair &&other) noexcept = default;

const Conv2DParams &Conv2DPair::first() const { return impl_->first; }
const Conv2DParams &Conv2DPair::second() const { return impl_->second; }
int64_t Conv2DPair::bandRows() const { return impl_->plan.bandRows(); }
int64_t Conv2DPair::outH() const { return impl_->sizes.outH; }
int64_t Conv2DPair::outW() const { return impl_->sizes.outW; }
int64_t Conv2DPair::inputElements() const { return impl_->inputElements(); }
int64_t Conv2DPair::outputElements() const { return impl_->outputElements(); }

int64_t Conv2DPair::flops() const { return impl_->sizes.flops; }

namespace {

/// `options` for a band of the first convolution: its output is the
/// window buffer, which the L2 holds whatever the caller's outputs.
TuneOptions firstBandOptions(TuneOptions options) {
  options.coldOutputs = false;
  return options;
}

} // namespace

Conv2DPair &Conv2DPair::tune(const TuneOptions &options) {
  for (auto &[rows, band] : impl_->firstBands)
    band.tune(firstBandOptions(options));
  impl_->secondBand.tune(options);
  return *this;
}

void Conv2DPair::setWeights(const float *firstWeights,
                            const float *secondWeights) {
  runtime::checkBuffer(firstWeights, "firstWeights");
  runtime::checkBuffer(secondWeights, "secondWeights");
  for (auto &[rows, band] : impl_->firstBands)
    band.setWeights(firstWeights);
  impl_->secondBand.setWeights(secondWeights);
  impl_->weightsSet.store(true, std::memory_order_release);
}

void Conv2DPair::run(const Conv2DPairRunArgs &args) const {
  runtime::withOutOfMemoryAsError("run()", [&] { impl_->run(args); });
}

TuneInfo Conv2DPair::tuneInfo() const {
  std::vector<runtime::TunedPart> parts;
  for (const auto &[rows, band] : impl_->firstBands)
    parts.push_back({band.tuneInfo(), impl_->plan.firstCalls().at(rows)});
  parts.push_back({impl_->secondBand.tuneInfo(), impl_->plan.bands()});
  return runtime::combinedTuneInfo(parts, flops());
}

bool Conv2DPair::isCached(const TuneOptions &options) const {
  for (const auto &[rows, band] : impl_->firstBands)
    if (!band.isCached(firstBandOptions(options)))
      return false;
  return impl_->secondBand.isCached(options);
}

std::string Conv2DPair::scheme() const {
  std::string text;
  for (const auto &[rows, band] : impl_->firstBands)
    text += "first, " + std::to_string(rows) + " rows: " + band.scheme() + "; ";
  return text + "second: " + impl_->secondBand.scheme();
}

} // namespace ttile
