//===- Spec/Check.cpp - Compare an output against the reference -----------===//
//
// The expected values and their magnitudes come from the reference executor
// (Reference.h): all at once for small outputs, one sampled point at a time
// for large ones, where computing the whole reference would cost as much as
// a naive run of the full problem.
//
//===----------------------------------------------------------------------===//

#include "Spec/Check.h"

#include "Spec/Reference.h"

#include "ttile/Error.h"

#include <charconv>
#include <cmath>
#include <iterator>
#include <random>

namespace ttile::spec {

namespace {

void validateOptions(const CheckOptions &options) {
  auto require = [](bool holds, const std::string &field,
                    const std::string &rule, auto value) {
    if (!holds)
      throw Error("CheckOptions." + field + " must be " + rule + ", got " +
                  std::to_string(value));
  };
  require(options.relTol >= 0, "relTol", ">= 0", options.relTol);
  require(options.absTol >= 0, "absTol", ">= 0", options.absTol);
  require(options.fullCheckLimit >= 0, "fullCheckLimit", ">= 0",
          options.fullCheckLimit);
  require(options.samples >= 1, "samples", ">= 1", options.samples);
  require(options.maxReported >= 0, "maxReported", ">= 0", options.maxReported);
}

/// Tallies compared points into a CheckResult.
class Tally {
public:
  explicit Tally(const CheckOptions &options) : options_(options) {}

  /// Compares one point. `coords` gives its output coordinates and is only
  /// called for a mismatch that goes into the report.
  template <class Coords>
  void compare(float actual, const ReferencePoint &expected, Coords &&coords) {
    ++result_.pointsChecked;
    double error = std::fabs(static_cast<double>(actual) - expected.value);
    // Written so that a NaN error, from a NaN output, is a mismatch.
    if (error <= options_.relTol * expected.magnitude + options_.absTol)
      return;
    result_.ok = false;
    ++result_.mismatchCount;
    if (result_.firstMismatches.size() <
        static_cast<size_t>(options_.maxReported))
      result_.firstMismatches.push_back(
          {coords(), static_cast<float>(expected.value), actual});
  }

  CheckResult take() { return std::move(result_); }

private:
  const CheckOptions &options_;
  CheckResult result_;
};

/// The shortest text that reads back as the same float, so that two
/// different values never print alike.
std::string floatString(float value) {
  char text[32];
  auto [end, error] = std::to_chars(std::begin(text), std::end(text), value);
  return error == std::errc() ? std::string(text, end) : "?";
}

} // namespace

std::string CheckResult::report(const Spec &spec) const {
  std::string checked = std::to_string(pointsChecked) + " points";
  if (mismatchCount == 0)
    return "all " + checked + " match";
  std::string text =
      std::to_string(mismatchCount) + " of " + checked + " differ; first: ";
  for (size_t i = 0; i < firstMismatches.size(); ++i) {
    const Mismatch &mismatch = firstMismatches[i];
    if (i != 0)
      text += "; ";
    text += spec.output().name + '[';
    for (size_t axis = 0; axis < mismatch.coords.size(); ++axis)
      text += (axis == 0 ? "" : ",") + std::to_string(mismatch.coords[axis]);
    text += "] expected " + floatString(mismatch.expected) + " got " +
            floatString(mismatch.actual);
  }
  if (mismatchCount > static_cast<int64_t>(firstMismatches.size()))
    text += "; ...";
  return text;
}

CheckResult checkOutput(const Spec &spec, std::span<const float *const> buffers,
                        const CheckOptions &options) {
  validateOptions(options);
  spec.verify();
  if (buffers.empty() || !buffers.front())
    throw Error("checkOutput: the output buffer is null");
  const Tensor &output = spec.output();
  const float *actual = buffers.front();
  Tally tally(options);

  if (output.numElements() <= options.fullCheckLimit) {
    std::vector<ReferencePoint> expected = referencePoints(spec, buffers);
    output.forEachElement([&](std::span<const int64_t> coords, int64_t offset) {
      tally.compare(actual[offset], expected[offset], [&] {
        return std::vector<int64_t>(coords.begin(), coords.end());
      });
    });
    return tally.take();
  }

  std::mt19937_64 random(options.seed);
  std::vector<int64_t> strides = output.strides();
  std::vector<int64_t> coords(output.axes.size());
  for (int64_t sample = 0; sample < options.samples; ++sample) {
    int64_t offset = 0;
    for (size_t axis = 0; axis < coords.size(); ++axis) {
      std::uniform_int_distribution<int64_t> pick(0,
                                                  output.axes[axis].extent - 1);
      coords[axis] = pick(random);
      offset += coords[axis] * strides[axis];
    }
    tally.compare(actual[offset], referencePointAt(spec, buffers, coords),
                  [&] { return coords; });
  }
  return tally.take();
}

} // namespace ttile::spec
