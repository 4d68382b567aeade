#include "mapper/view/pod_rules.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "base/json/json_writer.h"
#include "mapper/view/quantity.h"

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

// IsExtendedResourceName: not native, and "requests." + name a qualified name.
bool is_extended(std::string_view name) {
  return !is_native(name) && name.rfind("requests.", 0) != 0 && qualified_name("requests." + std::string(name));
}

// validateContainerResourceName's message, or nothing.
std::optional<std::string> name_breach(std::string_view name) {
  if (!qualified_name(name)) return "is not a qualified resource name";
  if (name.find('/') == std::string_view::npos) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && !is_hugepages(name))
      return "must be a standard resource for containers";
  } else if (!is_native(name) && !is_extended(name)) {
    return "doesn't follow extended resource name standard";
  }
  return std::nullopt;
}

std::optional<Quantity> quantity_of(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return Quantity::parse(text);
  if (value.is_number()) return Quantity::parse(json::json_number(double(value.get_double().value_unsafe())));
  return std::nullopt;
}

std::string text_of(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return "\"" + std::string(text) + "\"";
  return json::element_json(value);
}

// One ResourceRequirements' entries of `list` ("limits" or "requests"), read and checked on their own.
struct Entry {
  std::string_view name;  // into the object's DOM
  simdjson::dom::element value;
  std::optional<Quantity> quantity;
  std::string text() const { return text_of(value); }
};

std::vector<Entry> entries(simdjson::dom::element resources, std::string_view list, const std::string& where,
                           std::vector<std::string>& out) {
  std::vector<Entry> read;
  simdjson::dom::object object;
  if (!resources.is_object() || resources.get_object().value_unsafe().at_key(list).get_object().get(object))
    return read;
  for (auto [key, value] : object) {
    Entry e{key, value, quantity_of(value)};
    auto field = [&] { return where + "resources." + std::string(list) + "[" + std::string(e.name) + "]"; };
    if (auto why = name_breach(e.name)) out.push_back(field() + ": " + *why);
    if (!e.quantity) {
      out.push_back(field() + " " + e.text() + ": is not a quantity");
    } else if (e.quantity->milli() < 0) {
      out.push_back(field() + " " + e.text() + ": must be greater than or equal to 0");
    } else if (is_extended(e.name) && e.quantity->milli() % 1000 != 0) {
      out.push_back(field() + " " + e.text() + ": must be an integer");
    } else if (is_hugepages(e.name)) {
      const auto page = Quantity::parse(e.name.substr(10));
      if (!page || page->milli() <= 0 || page->milli() % 1000 != 0 ||
          e.quantity->units_ceil() % page->units_ceil() != 0)
        out.push_back(field() + " " + e.text() + ": is not positive integer multiple of " + std::string(e.name));
    }
    read.push_back(e);
  }
  return read;
}

void check_requirements(simdjson::dom::element resources, const std::string& where, std::vector<std::string>& out) {
  const std::vector<Entry> limits = entries(resources, "limits", where, out);
  const std::vector<Entry> requests = entries(resources, "requests", where, out);
  bool hugepages = false, cpu_or_memory = false;
  for (const auto* list : {&limits, &requests})
    for (const Entry& e : *list) {
      hugepages = hugepages || is_hugepages(e.name);
      cpu_or_memory = cpu_or_memory || e.name == "cpu" || e.name == "memory";
    }
  for (const Entry& request : requests) {
    if (!request.quantity) continue;
    const auto limit =
        std::find_if(limits.begin(), limits.end(), [&](const Entry& l) { return l.name == request.name; });
    auto field = [&] {
      return where + "resources.requests[" + std::string(request.name) + "] " + request.text() + ": ";
    };
    if (limit == limits.end()) {
      if (!overcommit_allowed(request.name))
        out.push_back(field() + "Limit must be set for non overcommitable resources");
    } else if (limit->quantity && *request.quantity != *limit->quantity && !overcommit_allowed(request.name)) {
      out.push_back(field() + "must be equal to " + std::string(request.name) + " limit of " + limit->text());
    } else if (limit->quantity && *request.quantity > *limit->quantity) {
      out.push_back(field() + "must be less than or equal to " + std::string(request.name) + " limit of " +
                    limit->text());
    }
  }
  if (hugepages && !cpu_or_memory) out.push_back(where + "resources: HugePages require cpu or memory");
}

}  // namespace

std::vector<std::string> pod_resource_breaches(simdjson::dom::element pod_spec) {
  std::vector<std::string> out;
  for (std::string_view list : {"initContainers", "containers"}) {
    simdjson::dom::array containers;
    if (!pod_spec.is_object() || pod_spec.get_object().value_unsafe().at_key(list).get_array().get(containers))
      continue;
    for (simdjson::dom::element container : containers) {
      simdjson::dom::element resources;
      if (!container.is_object() || container.get_object().value_unsafe().at_key("resources").get(resources)) continue;
      std::string_view name;
      if (container.get_object().value_unsafe().at_key("name").get_string().get(name)) name = "(no name)";
      check_requirements(resources,
                         (list == "initContainers" ? "init container " : "container ") + std::string(name) + ": ", out);
    }
  }
  return out;
}

std::vector<std::string> pod_template_breaches(const WorkloadView& view, json::ObjectDocument& doc) {
  std::vector<std::string> out;
  const simdjson::dom::element root = view.document(doc).root();
  for (const auto& c : view.components)
    for (const auto& i : c.instances) {
      const std::optional<std::string> at = i.pod_spec_location();
      simdjson::dom::element pod_spec;
      if (!at || root.at_pointer(*at).get(pod_spec) != simdjson::SUCCESS) continue;
      for (auto& breach : pod_resource_breaches(pod_spec))
        out.push_back("pod template " + c.name + "/" + i.id + ", " + std::move(breach));
    }
  return out;
}

}  // namespace wm::view
