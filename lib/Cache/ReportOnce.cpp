//===- Cache/ReportOnce.cpp - Log each cache problem once -----------------===//

#include "Cache/ReportOnce.h"

#include <mutex>
#include <set>
#include <string>

namespace ttile::cache {

bool reportOnce(std::string_view subject) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> reported;
  std::lock_guard<std::mutex> lock(mutex);
  return reported.emplace(subject).second;
}

} // namespace ttile::cache
