// Plain-text tables with aligned columns.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "mapper/view/quantity.h"

namespace wm::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "cpu=2,memory=8Gi": the requests other than GPUs (a GPUS column has those), "-" for none.
std::string non_gpu_requests(const view::ResourceList& list);

}  // namespace wm::cli
