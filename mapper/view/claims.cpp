#include "mapper/view/claims.h"

#include <algorithm>

#include "base/json/json_read.h"

namespace wm::view {

namespace {

bool member(simdjson::dom::element e, std::string_view key, simdjson::dom::element& out) {
  return e.is_object() && e.get_object().value_unsafe().at_key(key).get(out) == simdjson::SUCCESS;
}

// What a DeviceClass's devices count as: the policy's mapping, else the class's own extendedResourceName.
struct ClassTarget {
  enum { Resource, Nothing, Unknown } kind = Unknown;
  std::string resource;
};

ClassTarget class_target(std::string_view device_class, const ClaimContext& context) {
  if (context.classes)
    if (auto it = context.classes->resources.find(device_class); it != context.classes->resources.end())
      return it->second.empty() ? ClassTarget{ClassTarget::Nothing, ""}
                                : ClassTarget{ClassTarget::Resource, it->second};
  if (context.store)
    if (auto held = context.store->find(kDeviceClass.group, kDeviceClass.kind, "", device_class)) {
      simdjson::dom::parser parser;
      simdjson::dom::element root;
      if (parser.parse(*held).get(root) == simdjson::SUCCESS)
        if (std::string_view name = json::string_at(root, "/spec/extendedResourceName"); !name.empty())
          return {ClassTarget::Resource, std::string(name)};
    }
  return {};
}

std::string unmapped(std::string_view device_class) {
  return "DeviceClass " + std::string(device_class) +
         " counts as no resource (map it in the policy's devices.deviceClassMappings, or give it an "
         "extendedResourceName)";
}

// One exact request (v1 `exactly`, a firstAvailable alternative, or v1beta1's inline fields): its devices, or why
// they cannot be counted.
struct Devices {
  ResourceList counted;
  std::optional<UncountedDevices> uncounted;
};

Devices exact_request(simdjson::dom::element request, const ClaimContext& context) {
  bool admin = false;
  if (simdjson::dom::element a;
      member(request, "adminAccess", a) && a.get_bool().get(admin) == simdjson::SUCCESS && admin)
    return {};  // administrative access to devices in use: it allocates nothing
  const std::string_view device_class = json::string_member(request, "deviceClassName");
  const ClassTarget target = class_target(device_class, context);
  if (target.kind == ClassTarget::Nothing) return {};
  if (target.kind == ClassTarget::Unknown) return {{}, UncountedDevices{unmapped(device_class), {}}};
  if (json::string_member(request, "allocationMode") == "All")
    return {{},
            UncountedDevices{"allocationMode All takes every " + std::string(device_class) +
                                 " device of a node, which no count here can say",
                             {target.resource}}};
  int64_t count = 1;
  if (simdjson::dom::element c; member(request, "count", c) && c.get_int64().get(count) != simdjson::SUCCESS)
    return {{}, UncountedDevices{"count " + simdjson::to_string(c) + " is not a whole number", {target.resource}}};
  Devices out;
  out.counted.insert_or_assign(target.resource, *Quantity::parse(std::to_string(std::max<int64_t>(count, 0))));
  return out;
}

std::vector<std::string> resource_names(const ResourceList& list) {
  std::vector<std::string> out;
  for (const auto& [name, q] : list) out.push_back(name);
  return out;
}

// A firstAvailable request: one of its alternatives is allocated, so it is counted when they all ask for the same
// devices, or at the largest of each resource where the policy says so.
Devices first_available(std::string_view request_name, simdjson::dom::array alternatives, const ClaimContext& context) {
  std::vector<Devices> options;
  std::vector<std::string> resources;
  bool any_resource = false;
  for (auto alternative : alternatives) {
    options.push_back(exact_request(alternative, context));
    const Devices& d = options.back();
    for (auto& r : d.uncounted ? d.uncounted->resources : resource_names(d.counted)) resources.push_back(r);
    any_resource = any_resource || (d.uncounted && d.uncounted->resources.empty());
  }
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());
  if (any_resource) resources.clear();
  const std::string what = "request " + std::string(request_name) + " (firstAvailable)";
  for (const auto& d : options)
    if (d.uncounted) return {{}, UncountedDevices{what + ": an alternative's " + d.uncounted->what, resources}};
  if (options.empty()) return {};
  const bool alike =
      std::all_of(options.begin(), options.end(), [&](const Devices& d) { return d.counted == options[0].counted; });
  if (alike) return options[0];
  if (!context.classes || !context.classes->first_available_at_largest)
    return {{},
            UncountedDevices{what + ": its alternatives ask for different devices, and the policy does not count "
                                    "them at their largest (devices.firstAvailable: largest)",
                             resources}};
  Devices largest;
  for (const auto& d : options)
    for (const auto& [name, q] : d.counted) largest.counted[name] = max(largest.counted[name], q);
  return largest;
}

// The devices a claim's spec (a ResourceClaimSpec) asks for.
void count_claim_spec(simdjson::dom::element spec, const std::string& claim, const ClaimContext& context,
                      ResourceList& counted, std::vector<UncountedDevices>& uncounted) {
  simdjson::dom::array requests;
  if (spec.at_pointer("/devices/requests").get_array().get(requests) != simdjson::SUCCESS) return;
  for (auto request : requests) {
    simdjson::dom::element exactly, alternatives;
    simdjson::dom::array list;
    Devices d;
    if (member(request, "exactly", exactly))
      d = exact_request(exactly, context);
    else if (member(request, "firstAvailable", alternatives) && alternatives.get_array().get(list) == simdjson::SUCCESS)
      d = first_available(json::string_member(request, "name"), list, context);
    else  // resource.k8s.io/v1beta1: the request's fields inline
      d = exact_request(request, context);
    add_into(counted, d.counted);
    if (d.uncounted) uncounted.push_back({claim + ": " + d.uncounted->what, std::move(d.uncounted->resources)});
  }
}

}  // namespace

PodClaims pod_claims(simdjson::dom::element claims, const ClaimContext& context) {
  PodClaims out;
  simdjson::dom::array entries;
  if (claims.get_array().get(entries) != simdjson::SUCCESS) return out;
  for (auto entry : entries) {
    const std::string_view template_name = json::string_member(entry, "resourceClaimTemplateName");
    const std::string_view claim_name = json::string_member(entry, "resourceClaimName");
    const bool shared = template_name.empty();
    if (shared && claim_name.empty()) continue;  // names neither: the API server refuses the pod
    const catalog::GroupVersionKind& kind = shared ? kResourceClaim : kResourceClaimTemplate;
    const std::string object = kind.kind + " " +
                               (context.namespace_name.empty() ? "" : std::string(context.namespace_name) + "/") +
                               std::string(shared ? claim_name : template_name);
    const std::string what = "claim " + std::string(json::string_member(entry, "name")) + " (" + object + ")";
    auto held = context.store ? context.store->find(kind.group, kind.kind, context.namespace_name,
                                                    shared ? claim_name : template_name)
                              : nullptr;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (!held || parser.parse(*held).get(root) != simdjson::SUCCESS) {
      out.uncounted.push_back(
          {what + ": not known to workload-map" +
               (context.store ? std::string(" yet: the cluster side has not seen it (or the CLI was not given it)")
                              : std::string(": nothing holds claim objects here")),
           {}});
      continue;
    }
    simdjson::dom::element spec;
    if (root.at_pointer(shared ? "/spec" : "/spec/spec").get(spec) != simdjson::SUCCESS) continue;
    if (shared) {
      ResourceList devices;
      count_claim_spec(spec, what, context, devices, out.uncounted);
      out.shared[std::string(context.namespace_name) + "/" + std::string(claim_name)] = std::move(devices);
    } else {
      count_claim_spec(spec, what, context, out.per_pod, out.uncounted);
    }
  }
  return out;
}

void map_implicit_extended_resources(ResourceList& requests, const ClaimContext& context,
                                     std::vector<UncountedDevices>& uncounted) {
  bool implicit = false;
  for (const auto& [name, q] : requests) implicit = implicit || name.starts_with(kImplicitExtendedResourcePrefix);
  if (!implicit) return;
  ResourceList mapped;
  for (const auto& [name, q] : requests) {
    if (!name.starts_with(kImplicitExtendedResourcePrefix)) {
      mapped[name] += q;
      continue;
    }
    const std::string_view device_class = std::string_view(name).substr(kImplicitExtendedResourcePrefix.size());
    const ClassTarget target = class_target(device_class, context);
    if (target.kind == ClassTarget::Resource) {
      mapped[target.resource] += q;
    } else if (target.kind == ClassTarget::Unknown) {
      mapped[name] += q;
      uncounted.push_back({"container requests of " + name + ": " + unmapped(device_class), {}});
    }
  }
  requests = std::move(mapped);
}

}  // namespace wm::view
