#include "mapper/view/pod_rules.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "base/json/json_writer.h"
#include "mapper/view/quantity.h"
#include "mapper/view/resources.h"

namespace wm::view {

namespace {

bool is_hugepages(std::string_view name) { return name.rfind("hugepages-", 0) == 0; }

// IsNativeResource: no domain, or a kubernetes.io one.
bool is_native(std::string_view name) {
  return name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
}

// IsOvercommitAllowed: a request may be below its limit, or stand without one.
bool overcommit_allowed(std::string_view name) { return is_native(name) && !is_hugepages(name); }

bool dns_label_char(char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(c) || c == '-'; }

// A DNS-1123 subdomain: dot-separated labels of [a-z0-9-], each starting and ending alphanumeric, 253 at most.
bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t dot = std::min(s.find('.', start), s.size());
    const std::string_view label = s.substr(start, dot - start);
    if (label.empty() || label.front() == '-' || label.back() == '-' ||
        !std::all_of(label.begin(), label.end(), dns_label_char))
      return false;
    start = dot + 1;
  }
  return true;
}

// IsQualifiedName: [prefix/]name, name 1..63 of [A-Za-z0-9-_.] starting and ending alphanumeric.
bool qualified_name(std::string_view s) {
  const size_t slash = s.find('/');
  std::string_view name = s;
  if (slash != std::string_view::npos) {
    if (s.find('/', slash + 1) != std::string_view::npos || !dns_subdomain(s.substr(0, slash))) return false;
    name = s.substr(slash + 1);
  }
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (name.empty() || name.size() > 63 || !alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// IsExtendedResourceName: not native, and "requests." + name a qualified name: the same name with a prefix 9 longer.
bool is_extended(std::string_view name) {
  if (is_native(name) || name.rfind("requests.", 0) == 0 || !qualified_name(name)) return false;
  const size_t slash = name.find('/');
  return slash == std::string_view::npos || slash + 9 <= 253;
}

// validateContainerResourceName's message, or nothing.
std::optional<std::string> name_breach(std::string_view name) {
  if (name == "cpu" || name == "memory") return std::nullopt;  // nearly every entry: no need to look further
  if (!qualified_name(name)) return "is not a qualified resource name";
  if (name.find('/') == std::string_view::npos) {
    if (name != "ephemeral-storage" && !is_hugepages(name)) return "must be a standard resource for containers";
  } else if (!is_native(name) && !is_extended(name)) {
    return "doesn't follow extended resource name standard";
  }
  return std::nullopt;
}

// Two quantities written alike (the same string, or the same integer): equal without reading them.
bool written_alike(simdjson::dom::element a, simdjson::dom::element b) {
  std::string_view x, y;
  if (a.get_string().get(x) == simdjson::SUCCESS) return b.get_string().get(y) == simdjson::SUCCESS && x == y;
  int64_t i = 0, j = 0;
  return a.get_int64().get(i) == simdjson::SUCCESS && b.get_int64().get(j) == simdjson::SUCCESS && i == j;
}

// Whether a value needs reading as a quantity here: most entries (cpu and memory, requested alone or only limited)
// break no rule that their quantity decides but a negative one, which shows in its first character.
bool looks_negative(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return !text.empty() && text.front() == '-';
  double number = 0;
  return value.get_double().get(number) == simdjson::SUCCESS && number < 0;
}

// Where a breach is, made only when there is one: "container NAME: resources.LIST[RESOURCE]".
struct Where {
  std::string_view container_kind, container;
  std::string field(std::string_view list, std::string_view name) const {
    return std::string(container_kind) + " " + std::string(container) + ": resources." + std::string(list) + "[" +
           std::string(name) + "]";
  }
};

// One entry of limits or requests on its own: its name and quantity. Its quantity, when it is one.
// The quantity is read when a rule needs it (`compared`: a request with a limit), else only for names whose quantity
// has rules of its own; the view reads every one anyway (mapper/view/resources.cpp), and warns of those that are not.
std::optional<Quantity> check_entry(const Where& where, std::string_view list, std::string_view name,
                                    simdjson::dom::element value, bool compared, std::vector<std::string>& out) {
  if (auto why = name_breach(name)) out.push_back(where.field(list, name) + ": " + *why);
  const bool own_rules = !is_native(name) || is_hugepages(name);
  if (!compared && !own_rules && !looks_negative(value)) return std::nullopt;
  std::optional<Quantity> q = quantity_of(value);
  if (!q) {
    out.push_back(where.field(list, name) + " " + json::element_json(value) + ": is not a quantity");
  } else if (q->milli() < 0) {
    out.push_back(where.field(list, name) + " " + json::element_json(value) + ": must be greater than or equal to 0");
  } else if (is_extended(name) && q->milli() % 1000 != 0) {
    out.push_back(where.field(list, name) + " " + json::element_json(value) + ": must be an integer");
  } else if (is_hugepages(name)) {
    const auto page = Quantity::parse(name.substr(10));
    if (!page || page->milli() <= 0 || page->milli() % 1000 != 0 || q->units_ceil() % page->units_ceil() != 0)
      out.push_back(where.field(list, name) + " " + json::element_json(value) +
                    ": is not positive integer multiple of " + std::string(name));
  }
  return q;
}

void check_requirements(simdjson::dom::element resources, const Where& where, std::vector<std::string>& out) {
  simdjson::dom::object fields, limits, requests;
  if (resources.get_object().get(fields) != simdjson::SUCCESS) return;
  const bool has_limits = fields.at_key("limits").get_object().get(limits) == simdjson::SUCCESS;
  const bool has_requests = fields.at_key("requests").get_object().get(requests) == simdjson::SUCCESS;
  bool hugepages = false, cpu_or_memory = false;
  auto note = [&](std::string_view name) {
    hugepages = hugepages || is_hugepages(name);
    cpu_or_memory = cpu_or_memory || name == "cpu" || name == "memory";
  };
  if (has_limits)
    for (auto [name, value] : limits) {
      simdjson::dom::element request_value;
      const bool compared = has_requests && requests.at_key(name).get(request_value) == simdjson::SUCCESS &&
                            !written_alike(value, request_value);
      check_entry(where, "limits", name, value, compared, out);
      note(name);
    }
  if (has_requests)
    for (auto member : requests) {
      // Named, not bound: clang 14 lets no lambda capture a structured binding, and one below takes them.
      const std::string_view name = member.key;
      const simdjson::dom::element value = member.value;
      note(name);
      simdjson::dom::element limit_value;
      const bool limited = has_limits && limits.at_key(name).get(limit_value) == simdjson::SUCCESS;
      // Requested as limited, written the same (a GPU's `8` and `8`): equal, with nothing to compare.
      const bool same_text = limited && written_alike(value, limit_value);
      const std::optional<Quantity> request = check_entry(where, "requests", name, value, limited && !same_text, out);
      if (same_text) continue;
      auto field = [&] { return where.field("requests", name) + " " + json::element_json(value) + ": "; };
      if (!limited) {
        if (!overcommit_allowed(name)) out.push_back(field() + "Limit must be set for non overcommitable resources");
        continue;
      }
      if (!request) continue;
      const std::optional<Quantity> limit = quantity_of(limit_value);
      if (!limit) continue;
      if (*request != *limit && !overcommit_allowed(name))
        out.push_back(field() + "must be equal to " + std::string(name) + " limit of " +
                      json::element_json(limit_value));
      else if (*request > *limit)
        out.push_back(field() + "must be less than or equal to " + std::string(name) + " limit of " +
                      json::element_json(limit_value));
    }
  if (hugepages && !cpu_or_memory)
    out.push_back(std::string(where.container_kind) + " " + std::string(where.container) +
                  ": resources: HugePages require cpu or memory");
}

}  // namespace

std::vector<std::string> pod_resource_breaches(simdjson::dom::element pod_spec) {
  std::vector<std::string> out;
  simdjson::dom::object spec;
  if (pod_spec.get_object().get(spec) != simdjson::SUCCESS) return out;
  for (std::string_view list : {"initContainers", "containers"}) {
    simdjson::dom::array containers;
    if (spec.at_key(list).get_array().get(containers) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element container : containers) {
      simdjson::dom::object fields;
      simdjson::dom::element resources;
      if (container.get_object().get(fields) != simdjson::SUCCESS ||
          fields.at_key("resources").get(resources) != simdjson::SUCCESS || !resources.is_object())
        continue;
      std::string_view name;
      if (fields.at_key("name").get_string().get(name) != simdjson::SUCCESS) name = "(no name)";
      check_requirements(resources, Where{list == "initContainers" ? "init container" : "container", name}, out);
    }
  }
  return out;
}

std::vector<std::string> pod_template_breaches(const WorkloadView& view) {
  std::vector<std::string> out;
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      for (const auto& breach : i.pod_rule_breaches)
        out.push_back("pod template " + c.name + "/" + i.id + ", " + breach);
  return out;
}

}  // namespace wm::view
