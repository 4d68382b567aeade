#include "cli/table.h"

#include <algorithm>

#include "mapper/view/resources.h"

namespace wm::cli {

void Table::print(std::ostream& out) const {
  std::vector<size_t> widths;
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

std::string non_gpu_requests(const view::ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    if (view::is_gpu_resource(name)) continue;
    if (!out.empty()) out += ",";
    out += name + "=" + q.str(view::is_byte_resource(name));
  }
  return out.empty() ? "-" : out;
}

}  // namespace wm::cli
