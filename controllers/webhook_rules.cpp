#include "controllers/webhook_rules.h"

#include <simdjson.h>

#include <map>
#include <set>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"

namespace wm::controllers {

namespace {

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

}  // namespace

RoutedResources resources_to_route(const catalog::Catalog& catalog, const kube::FindResource& find) {
  RoutedResources out;
  for (const auto& d : catalog.definitions()) {
    auto resource = find(d->gvk.group, d->gvk.version, d->gvk.kind);
    if (resource)
      out.resources.emplace(resource->group, resource->plural);
    else
      out.complete = false;
  }
  return out;
}

RulesPatch missing_rules_patch(simdjson::dom::element config, const std::set<GroupResource>& wanted) {
  RulesPatch out;
  simdjson::dom::array webhooks;
  if (config["webhooks"].get_array().get(webhooks) != simdjson::SUCCESS) return out;
  json::JsonWriter patch;
  patch.begin_array();
  patch.begin_object().field("op", "test").field("path", "/metadata/resourceVersion");
  patch.field("value", json::string_at(config, "/metadata/resourceVersion")).end_object();
  size_t index = 0;
  for (auto webhook : webhooks) {
    const std::string rules_path = "/webhooks/" + std::to_string(index++) + "/rules";
    simdjson::dom::array rules;
    const bool has_rules = webhook["rules"].get_array().get(rules) == simdjson::SUCCESS;
    std::map<std::string, std::vector<std::string>> missing;  // by group
    for (const auto& gr : wanted)
      if (!has_rules || !routes(rules, gr)) missing[gr.first].push_back(gr.second);
    if (!has_rules && !missing.empty())
      patch.begin_object()
          .field("op", "add")
          .field("path", rules_path)
          .key("value")
          .begin_array()
          .end_array()
          .end_object();
    for (const auto& [group, resources] : missing) {
      patch.begin_object().field("op", "add").field("path", rules_path + "/-").key("value").begin_object();
      patch.key("operations").begin_array().value("CREATE").value("UPDATE").end_array();
      patch.key("apiGroups").begin_array().value(group).end_array();
      patch.key("apiVersions").begin_array().value("*").end_array();
      patch.key("resources").begin_array();
      for (const auto& r : resources) {
        patch.value(r);
        out.added += (out.added.empty() ? "" : ", ") + r + (group.empty() ? "" : "." + group);
      }
      patch.end_array().end_object().end_object();
    }
  }
  patch.end_array();
  if (!out.added.empty()) out.patch = patch.take();
  return out;
}

Result<void> WebhookRules::sync() {
  const auto catalog = cluster_.state.current().catalog;
  if (!catalog) return Error{"no catalog yet", ErrorCode::Unavailable};
  const RoutedResources wanted = resources_to_route(*catalog, cluster_.discovery.finder());
  Result<void> outcome;
  if (!wanted.complete) outcome = Error{"some catalog kinds are not served yet", ErrorCode::NotFound};
  simdjson::dom::parser parser;
  for (const auto& path : configurations_) {
    kube::Response got = cluster_.api.request("GET", path);
    if (got.status == 404) continue;  // not installed (a webhook run by hand)
    simdjson::dom::element config;
    simdjson::dom::array webhooks;
    if (!got.ok() || parser.parse(got.body).get(config) || config["webhooks"].get_array().get(webhooks)) {
      cluster_.log.log(LogLevel::Warn, "cannot read a webhook configuration",
                       {{"configuration", path}, {"problem", got.describe()}});
      outcome = got.ok() ? Error{"read " + path + ": not a webhook configuration", ErrorCode::Unavailable}
                         : got.failure("read " + path);
      continue;
    }
    const auto [patch, added] = missing_rules_patch(config, wanted.resources);
    if (added.empty()) continue;
    kube::Response r = cluster_.api.request("PATCH", path, patch, kube::kJsonPatch);
    if (!r.ok()) {
      cluster_.log.log(LogLevel::Warn, "cannot add rules to a webhook configuration (retrying)",
                       {{"configuration", path}, {"problem", r.describe()}});
      outcome = r.failure("add rules to " + path);  // a failed resourceVersion test: someone wrote it first
      continue;
    }
    cluster_.metrics.add_counter(kWebhookRulesAddedMetric, {});
    cluster_.log.log(LogLevel::Info, "webhook configuration now routes the catalog's kinds",
                     {{"configuration", path}, {"added", added}});
    ObjectReference reference = reference_to(config);
    if (reference.api_version.empty()) reference.api_version = "admissionregistration.k8s.io/v1";
    cluster_.events.normal(reference, "RulesAdded", "now routes " + added + " to the webhook");
  }
  return outcome;
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
    synced = sync() ? catalog.get() : nullptr;  // any failure: the next round (100 ms) asks again
  }
}

}  // namespace wm::controllers
