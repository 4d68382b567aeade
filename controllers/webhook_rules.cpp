#include "controllers/webhook_rules.h"

#include <simdjson.h>

#include <map>
#include <set>

#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"
#include "base/json/json_writer.h"

namespace wm::controllers {

namespace {

using GroupResource = std::pair<std::string, std::string>;

bool has(simdjson::dom::element rule, std::string_view list, std::string_view value) {
  simdjson::dom::array items;
  if (rule[list].get_array().get(items) != simdjson::SUCCESS) return false;
  for (auto item : items) {
    std::string_view s;
    if (item.get_string().get(s) == simdjson::SUCCESS && (s == value || s == "*")) return true;
  }
  return false;
}

bool routes(simdjson::dom::array rules, const GroupResource& gr) {
  for (auto rule : rules)
    if (has(rule, "apiGroups", gr.first) && has(rule, "resources", gr.second) && has(rule, "operations", "CREATE") &&
        has(rule, "operations", "UPDATE"))
      return true;
  return false;
}

// The JSON Patch that adds a rule for each resource of `wanted` that a webhook of the configuration does not route,
// with the configuration's resourceVersion as a precondition; `added` names them ("" when none is missing).
std::string missing_rules_patch(simdjson::dom::element config, simdjson::dom::array webhooks,
                                const std::set<GroupResource>& wanted, std::string& added) {
  std::string_view resource_version;
  if (config.at_pointer("/metadata/resourceVersion").get_string().get(resource_version)) resource_version = "";
  std::string patch =
      "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":" + json::json_string(resource_version) + "}";
  size_t index = 0;
  for (auto webhook : webhooks) {
    simdjson::dom::array rules;
    const bool has_rules = webhook["rules"].get_array().get(rules) == simdjson::SUCCESS;
    std::map<std::string, std::vector<std::string>> missing;  // by group
    for (const auto& gr : wanted)
      if (!has_rules || !routes(rules, gr)) missing[gr.first].push_back(gr.second);
    if (!has_rules && !missing.empty())
      patch += ",{\"op\":\"add\",\"path\":\"/webhooks/" + std::to_string(index) + "/rules\",\"value\":[]}";
    for (const auto& [group, resources] : missing) {
      std::string list;
      for (const auto& r : resources) {
        list += (list.empty() ? "" : ",") + json::json_string(r);
        added += (added.empty() ? "" : ", ") + r + (group.empty() ? "" : "." + group);
      }
      patch += ",{\"op\":\"add\",\"path\":\"/webhooks/" + std::to_string(index) +
               "/rules/-\",\"value\":{\"operations\":[\"CREATE\",\"UPDATE\"],\"apiGroups\":[" +
               json::json_string(group) + "],\"apiVersions\":[\"*\"],\"resources\":[" + list + "]}}";
    }
    ++index;
  }
  return patch + "]";
}
}  // namespace

bool WebhookRules::sync() {
  const auto catalog = cluster_.state.current().catalog;
  if (!catalog) return false;
  bool complete = true;
  std::set<GroupResource> wanted;
  for (const auto& d : catalog->definitions()) {
    auto resource = cluster_.discovery.find(d->gvk.group, d->gvk.version, d->gvk.kind);
    if (resource)
      wanted.emplace(resource->group, resource->plural);
    else
      complete = false;  // its CRD is not installed yet: looked for again on the next round
  }
  simdjson::dom::parser parser;
  for (const auto& path : configurations_) {
    kube::Response got = cluster_.api.request("GET", path);
    if (got.status == 404) continue;  // not installed (a webhook run by hand)
    simdjson::dom::element config;
    simdjson::dom::array webhooks;
    if (!got.ok() || parser.parse(got.body).get(config) || config["webhooks"].get_array().get(webhooks)) {
      cluster_.log.log(LogLevel::Warn, "cannot read a webhook configuration",
                       {{"configuration", path}, {"problem", got.describe()}});
      complete = false;
      continue;
    }
    std::string added;
    const std::string patch = missing_rules_patch(config, webhooks, wanted, added);
    if (added.empty()) continue;
    kube::Response r = cluster_.api.request("PATCH", path, patch, "application/json-patch+json");
    if (!r.ok()) {
      cluster_.log.log(LogLevel::Warn, "cannot add rules to a webhook configuration (retrying)",
                       {{"configuration", path}, {"problem", r.describe()}});
      complete = false;
      continue;
    }
    cluster_.metrics.add_counter(kWebhookRulesAddedMetric, {});
    cluster_.log.log(LogLevel::Info, "webhook configuration now routes the catalog's kinds",
                     {{"configuration", path}, {"added", added}});
    ObjectReference reference = reference_to(config);
    if (reference.api_version.empty()) reference.api_version = "admissionregistration.k8s.io/v1";
    cluster_.events.normal(reference, "RulesAdded", "now routes " + added + " to the webhook");
  }
  return complete;
}

void WebhookRules::run(const std::atomic<bool>& stop, const std::atomic<bool>& leading) {
  const catalog::Catalog* synced = nullptr;
  auto last = std::chrono::steady_clock::now();
  // A catalog change is noticed within 100 ms (comparing two pointers); the API server is asked only then.
  while (kube::sleep_unless_stopped(std::chrono::milliseconds(100), stop)) {
    if (!leading.load()) {
      synced = nullptr;
      continue;
    }
    const auto catalog = cluster_.state.current().catalog;
    const auto now = std::chrono::steady_clock::now();
    if (catalog.get() == synced && now - last < std::chrono::minutes(1)) continue;
    last = now;
    synced = sync() ? catalog.get() : nullptr;
  }
}

}  // namespace wm::controllers
