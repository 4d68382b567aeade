#include "live/label_selector.h"

#include <algorithm>

#include "base/json/json_read.h"

namespace wm::live {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The requirements, split at commas outside parentheses.
std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '(') ++depth;
    if (i < text.size() && text[i] == ')') --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      if (std::string_view part = trim(text.substr(start, i - start)); !part.empty()) out.push_back(part);
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> set_values(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view v : split(list)) out.emplace_back(v);
  return out;
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector selector;
  for (std::string_view part : split(text)) {
    Requirement r{Requirement::Op::Exists, {}, {}};
    const size_t open = part.find('('), space = part.find(' ');
    if (open != std::string_view::npos && part.back() == ')' && space != std::string_view::npos && space < open) {
      const std::string_view op = trim(part.substr(space, open - space));
      if (op != "in" && op != "notin")
        return Error{"cannot read the selector requirement \"" + std::string(part) + "\""};
      r.op = op == "in" ? Requirement::Op::In : Requirement::Op::NotIn;
      r.key = std::string(trim(part.substr(0, space)));
      r.values = set_values(part.substr(open + 1, part.size() - open - 2));
    } else if (const size_t ne = part.find("!="); ne != std::string_view::npos) {
      r = {Requirement::Op::NotIn, std::string(trim(part.substr(0, ne))), {std::string(trim(part.substr(ne + 2)))}};
    } else if (const size_t eq = part.find('='); eq != std::string_view::npos) {
      const size_t value = part.substr(eq + 1).starts_with("=") ? eq + 2 : eq + 1;
      r = {Requirement::Op::In, std::string(trim(part.substr(0, eq))), {std::string(trim(part.substr(value)))}};
    } else if (part.starts_with("!")) {
      r = {Requirement::Op::DoesNotExist, std::string(trim(part.substr(1))), {}};
    } else {
      r.key = std::string(part);
    }
    if (r.key.empty() || r.key.find_first_of(" =!()") != std::string::npos)
      return Error{"cannot read the selector requirement \"" + std::string(part) + "\""};
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool LabelSelector::matches(simdjson::dom::element object) const {
  simdjson::dom::object labels;
  const bool labelled = object.at_pointer("/metadata/labels").get_object().get(labels) == simdjson::SUCCESS;
  for (const auto& r : requirements_) {
    std::string_view value;
    const bool has = labelled && labels.at_key(r.key).get_string().get(value) == simdjson::SUCCESS;
    const bool listed = has && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case Requirement::Op::In:
        if (!listed) return false;
        break;
      case Requirement::Op::NotIn:
        if (listed) return false;
        break;
      case Requirement::Op::Exists:
        if (!has) return false;
        break;
      case Requirement::Op::DoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace wm::live
