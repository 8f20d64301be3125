//===- Search/MicrokernelClasses.cpp - The classes search draws from ------===//

#include "Search/MicrokernelClasses.h"

#include "Search/MicrokernelTable.h"
#include "Support/Logging.h"

#include <map>
#include <mutex>

namespace ttile::search {

const std::vector<MicrokernelClass> &
microkernelClasses(const MicrokernelFamily &family) {
  // Every layer a process tunes draws from the same table: read it once.
  static std::mutex mutex;
  static std::map<std::string, MicrokernelTable> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = tables.find(family.name);
  if (found == tables.end()) {
    MicrokernelTable table = microkernelTable(family);
    log().info("{} microkernels: {} classes from the {} table", family.name,
               table.classes.size(), tableOriginName(table.origin));
    found = tables.emplace(family.name, std::move(table)).first;
  }
  return found->second.classes;
}

} // namespace ttile::search
