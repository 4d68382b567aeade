#include "mapper/view/resources.h"

#include "base/json/json_writer.h"

namespace wm::view {

namespace {

void read_list(simdjson::dom::element list, ResourceList& out, bool only_missing, std::vector<std::string>& warnings) {
  simdjson::dom::object object;
  if (list.get_object().get(object) != simdjson::SUCCESS) return;
  for (auto [name, value] : object) {
    if (only_missing && out.count(name)) continue;
    auto q = quantity_of(value);
    if (!q) {
      warnings.push_back("resource " + std::string(name) + " has an invalid quantity " + json::element_json(value));
      continue;
    }
    out.insert_or_assign(std::string(name), *q);
  }
}

bool field(simdjson::dom::element element, std::string_view key, simdjson::dom::element& out) {
  return element.is_object() && element.get_object().value_unsafe().at_key(key).get(out) == simdjson::SUCCESS;
}

}  // namespace

std::optional<Quantity> quantity_of(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return Quantity::parse(text);
  int64_t whole = 0;
  if (value.get_int64().get(whole) == simdjson::SUCCESS) return Quantity::units(whole);
  if (value.is_number()) return Quantity::parse(json::json_number(double(value.get_double().value_unsafe())));
  return std::nullopt;
}

ResourceList requirements_requests(simdjson::dom::element resources, std::vector<std::string>& warnings) {
  ResourceList out;
  simdjson::dom::element list;
  if (field(resources, "requests", list)) read_list(list, out, false, warnings);
  if (field(resources, "limits", list)) read_list(list, out, true, warnings);  // requests default to limits
  return out;
}

ResourceList container_requests(simdjson::dom::element container, std::vector<std::string>& warnings) {
  simdjson::dom::element resources;
  if (!field(container, "resources", resources)) return {};
  return requirements_requests(resources, warnings);
}

ResourceList containers_requests(simdjson::dom::element containers, std::vector<std::string>& warnings) {
  ResourceList total;
  simdjson::dom::array array;
  if (containers.get_array().get(array) != simdjson::SUCCESS) return total;
  for (auto c : array) add_into(total, container_requests(c, warnings));
  return total;
}

ResourceList pod_requests(simdjson::dom::element pod_spec, std::vector<std::string>& warnings) {
  ResourceList pod;
  simdjson::dom::element containers, init_containers, overhead;
  if (field(pod_spec, "containers", containers)) pod = containers_requests(containers, warnings);

  simdjson::dom::array inits;
  if (field(pod_spec, "initContainers", init_containers) &&
      init_containers.get_array().get(inits) == simdjson::SUCCESS) {
    ResourceList sidecars, init_peak;
    for (auto init : inits) {
      ResourceList request = container_requests(init, warnings);
      simdjson::dom::element restart;
      std::string_view policy;
      if (field(init, "restartPolicy", restart) && restart.get_string().get(policy) == simdjson::SUCCESS &&
          policy == "Always") {
        add_into(sidecars, request);  // a sidecar runs beside everything after it
        continue;
      }
      add_into(request, sidecars);
      for (const auto& [name, q] : request) init_peak[name] = max(init_peak[name], q);
    }
    add_into(pod, sidecars);
    for (const auto& [name, q] : init_peak) pod[name] = max(pod[name], q);
  }
  // Pod-level resources (KEP-2837) replace the containers' total for the resources they may name: cpu, memory and
  // hugepages-* (k8s.io/component-helpers/resource: PodRequests, IsSupportedPodLevelResource); requests default to
  // limits, as for a container. The overhead still comes on top.
  simdjson::dom::element pod_level;
  if (field(pod_spec, "resources", pod_level))
    for (const auto& [name, q] : requirements_requests(pod_level, warnings))
      if (name == "cpu" || name == "memory" || name.rfind("hugepages-", 0) == 0) pod.insert_or_assign(name, q);
  if (field(pod_spec, "overhead", overhead)) {
    ResourceList extra;
    read_list(overhead, extra, false, warnings);
    add_into(pod, extra);
  }
  return pod;
}

bool is_gpu_resource(std::string_view name) { return name.size() > 4 && name.substr(name.size() - 4) == "/gpu"; }

long long gpu_count(const ResourceList& list) {
  long long n = 0;
  for (const auto& [name, q] : list)
    if (is_gpu_resource(name)) n += q.units_ceil();
  return n;
}

std::vector<std::string> gpu_containers_missing_requests(simdjson::dom::element pod_spec,
                                                         const std::vector<std::string>& required) {
  std::vector<std::string> out;
  for (const char* list : {"initContainers", "containers"}) {
    simdjson::dom::element containers;
    simdjson::dom::array array;
    if (!field(pod_spec, list, containers) || containers.get_array().get(array) != simdjson::SUCCESS) continue;
    for (auto c : array) {
      simdjson::dom::element resources, limits, requests;
      if (!field(c, "resources", resources) || !field(resources, "limits", limits) || !limits.is_object()) continue;
      bool gpu = false;
      simdjson::dom::object limit_list = limits.get_object().value_unsafe();  // a view: keep it named
      for (auto [name, value] : limit_list) gpu = gpu || is_gpu_resource(name);
      if (!gpu) continue;
      bool has_requests = field(resources, "requests", requests);
      bool missing = false;
      for (const auto& r : required) {
        simdjson::dom::element q;
        missing = missing || !has_requests || !field(requests, r, q);
      }
      std::string_view name;
      if (missing) out.emplace_back(c["name"].get_string().get(name) ? "(unnamed)" : std::string(name));
    }
  }
  return out;
}

}  // namespace wm::view
