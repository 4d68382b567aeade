// Reads manifest files and hands each object, with its definition (if any), to a callback.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"
#include "mapper/catalog/catalog.h"
#include "mapper/catalog/documents.h"

namespace wm::cli {

struct Workload {
  const catalog::SourceDocument& source;
  json::ObjectDocument& doc;
  std::string api_version, kind, name;
  catalog::Catalog::Match match;  // match.definition is null for kinds the catalog does not know
};

// Returns the number of files or documents that could not be read or parsed (reported on stderr).
int for_each_workload(const std::vector<std::string>& files, const catalog::Catalog& catalog,
                      const std::function<void(Workload&)>& each);

}  // namespace wm::cli
