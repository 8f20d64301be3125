//===- unittests/Runtime/TuneChild.cpp - One process of MultiProcessTest --===//
//
// What an application does at start-up, as a process of its own: tune the
// small layer of ConvTestUtil.h against the cache of TTILE_CACHE_DIR, run
// it, and check the output against the reference. MultiProcessTest starts
// two of these at once on one cache directory.
//
//   RuntimeTuneChild RESULT-FILE
//
// writes "cacheHit=<0|1> trials=<n> mismatches=<n>" to RESULT-FILE and
// exits 0, or prints the error and exits 1.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "ConvTestUtil.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RESULT-FILE\n", argv[0]);
    return 2;
  }
  try {
    ttile::Conv2DParams params = ttile::testing::smallLayer();
    ttile::Conv2D conv(params);
    ttile::TuneOptions options = ttile::testing::quickTune();
    // A wait without limit is a blocking flock, which /proc/locks shows:
    // the parent waits to see both children blocked there. (A limited wait
    // polls; KeyLockTest covers it.)
    options.lockWaitSeconds = std::numeric_limits<double>::infinity();
    conv.tune(options);
    ttile::testing::ConvCase reference(params);
    std::vector<std::string> mismatches =
        reference.mismatches(reference.run(conv));
    for (const std::string &mismatch : mismatches)
      std::fprintf(stderr, "%s\n", mismatch.c_str());
    ttile::Conv2D::TuneInfo info = conv.tuneInfo();
    std::ofstream(argv[1]) << "cacheHit=" << info.cacheHit
                           << " trials=" << info.trials
                           << " mismatches=" << mismatches.size() << "\n";
    return 0;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
    return 1;
  }
}
