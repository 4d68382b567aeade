// Every catalog kind, checked where its edits must land: each fixture of the kind (../shared/corpus and
// tests/fixtures/upstream) sent through the real API server, with the kind's real CRD installed and the webhook
// registered as shipped, under every profile of the shipped policy: what the API server would store carries every edit
// the webhook's patch made (the CRD's structural schema pruned none of it), and the workload's summary annotations. A
// new definition, fixture or profile is covered without a new test.
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <set>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "kube/client.h"
#include "kube/discovery.h"
#include "policy/policy.h"
#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

// `stored` holds `expected`: every key of each expected object, arrays element by element, the same numbers and
// booleans, and a string where a string was written. Pruning drops fields, which this finds; a string's value may
// differ, for what the API server does before it calls the webhook and the test's direct ask does not see (a Pod's
// default tolerations in a task group, a generateName object's uid in its gang name).
bool contains(simdjson::dom::element stored, simdjson::dom::element expected, std::string& where) {
  using simdjson::dom::element_type;
  if (expected.type() == element_type::OBJECT) {
    if (stored.type() != element_type::OBJECT) return where = "not an object", false;
    // simdjson objects and arrays are views: name them, since a range-for over a temporary would dangle.
    const simdjson::dom::object fields = expected.get_object().value_unsafe();
    for (auto [key, value] : fields) {
      simdjson::dom::element inner;
      if (stored[key].get(inner) != simdjson::SUCCESS) return where = "/" + std::string(key) + " is missing", false;
      if (!contains(inner, value, where)) return where = "/" + std::string(key) + where, false;
    }
    return true;
  }
  if (expected.type() == element_type::ARRAY) {
    if (stored.type() != element_type::ARRAY) return where = "not an array", false;
    auto s = stored.get_array().value_unsafe(), e = expected.get_array().value_unsafe();
    if (s.size() != e.size()) return where = "an array of another length", false;
    for (size_t i = 0; i < e.size(); ++i)
      if (!contains(s.at(i).value_unsafe(), e.at(i).value_unsafe(), where))
        return where = "/" + std::to_string(i) + where, false;
    return true;
  }
  if (expected.is_string() && stored.is_string()) return true;
  if (simdjson::to_string(stored) == simdjson::to_string(expected)) return true;
  where = ": stored " + simdjson::to_string(stored) + ", patched " + simdjson::to_string(expected);
  return false;
}

// Served versions whose objects the API server cannot store without an operator's conversion webhook.
bool needs_conversion_webhook(const std::string& api_version) { return api_version == "nvidia.com/v1alpha1"; }

}  // namespace

TEST_CASE("every fixture of every catalog kind keeps every edit of every shipped profile through its real CRD") {
  const Cluster& cluster = Cluster::get();
  // One rule per profile of the shipped policy, each for the namespaces named after it.
  const policy::Policy shipped = policy::Policy::builtin();
  std::string rules;
  for (const auto& profile : shipped.profile_names())
    rules += "- name: " + profile + "\n  namespaces: [\"prune-" + profile +
             "-*\"]\n  kinds: [\"*\"]\n  profile: " + profile + R"(
  queue: {fromLabel: kai.scheduler/queue, default: research}
  podLabels: {team: corpus}
  podAnnotations: {workload-map.io/checked: "yes"}
  failurePolicy: Fail
)";
  // And the rest (the registration's probe) as shipped.
  rules += "- name: rest\n  namespaces: [\"*\"]\n  kinds: [\"*\"]\n  profile: kai\n";
  // A TrainJob's pods come from its runtime, which the cluster side holds once it sees it: the fixtures' runtimes are
  // applied, and the webhook runs its cluster side.
  for (const auto& runtime : yaml_files_under(source_path("tests/fixtures/upstream/trainjob/runtimes")))
    REQUIRE(cluster
                .kubectl({"apply", "--server-side", "-f",
                          source_path("tests/fixtures/upstream/trainjob/runtimes/" + runtime)})
                .status == 0);
  RegisteredWebhook webhook(policy_with_rules(rules), "base",
                            {"--kubeconfig", cluster.kubeconfig(), "--identity", "prune"});
  HttpsClient direct(webhook.server().port());
  // The API server asked directly: a server-side dry run per object and profile, without a kubectl process each.
  const std::unique_ptr<kube::Client> client = cluster.client();
  kube::Client& api = *client;
  kube::Discovery discovery(api);
  // Where the webhook is not called: to tell a manifest its own CRD refuses from one the webhook's patch broke.
  const std::string unwatched = "prune-unwatched";
  REQUIRE(cluster.kubectl({"create", "namespace", unwatched}).status == 0);

  std::vector<std::pair<std::string, std::string>> files;  // directory, file
  for (const auto& f : corpus_files()) files.emplace_back(corpus_dir(), f);
  const std::string upstream = source_path("tests/fixtures/upstream");
  for (const auto& f : yaml_files_under(upstream)) files.emplace_back(upstream, f);

  // Until the cluster side has listed the runtimes, a TrainJob is not understood.
  const std::string train_job = source_path("tests/fixtures/upstream/trainjob/multi-node.yaml");
  const std::string first = make_namespace("prune-kai");
  CHECK(eventually(
      [&] {
        return cluster.kubectl({"create", "--dry-run=server", "-n", first, "-f", train_job}).status == 0;
      },
      std::chrono::seconds(30)));
  const bool native_gangs_served = bool(discovery.find("scheduling.k8s.io", "v1beta1", "PodGroup"));
  int dropped_scheduling_groups = 0;
  std::map<std::string, int> kept_by_profile;
  std::set<std::string> kinds_kept, kinds_unserved;
  int refused_count = 0, invalid = 0, skipped = 0;
  std::set<std::string> refused_files, invalid_files;
  for (const auto& profile : shipped.profile_names()) {
    const std::string ns = make_namespace("prune-" + profile);
    for (const auto& [dir, file] : files)
      for (auto& object : parse_file(dir + "/" + file)) {
        if (!builtin_catalog().find(object.api_version, object.kind).definition) continue;
        INFO(profile << ": " << file << ": " << object.kind << " " << object.name);
        const auto [group, version] = json::split_api_version(object.api_version);
        auto resource = discovery.find(std::string(group), std::string(version), object.kind);
        if (!resource) {  // ../shared/crds has no CRD for it (NIMCache)
          kinds_unserved.insert(object.kind);
          continue;
        }
        if (needs_conversion_webhook(object.api_version)) {
          ++skipped;
          continue;
        }
        // Created in the profile's namespace, whatever the manifest names.
        CommandResult unplaced =
            run_command({"jq", "-c", "del(.metadata.namespace)"}, simdjson::to_string(object.root));
        REQUIRE(unplaced.status == 0);
        const std::string& json = unplaced.out;
        auto dry_run = [&](const std::string& in) {
          return api.request("POST", resource->path(in) + "?dryRun=All&fieldManager=workload-map-test", json);
        };

        // The patch the webhook makes for this object, asked directly ...
        simdjson::dom::parser review_parser;
        simdjson::dom::element review, patch;
        REQUIRE(review_parser.parse(direct.post("/mutate", admission_review(json, ns)).body).get(review) ==
                simdjson::SUCCESS);
        if (string_at(review, "/response/status/message") != "<missing>") {
          // Not understood (a sample with an empty spec): under failurePolicy Fail the API server refuses it with the
          // webhook's reason.
          const std::string reason = string_at(review, "/response/status/message");
          const kube::Response refused = dry_run(ns);
          INFO("the webhook's answer asked directly: " << reason);
          INFO(refused.describe());
          CHECK_FALSE(refused.ok());
          CHECK(refused.body.find(reason.substr(0, 60)) != std::string::npos);
          ++refused_count;
          refused_files.insert(file);
          continue;
        }
        const std::string patch_text = base64_decode(string_at(review, "/response/patch"));

        // ... and what the API server would store when it is created, through the same webhook.
        const kube::Response created = dry_run(ns);
        INFO(created.describe());
        if (!created.ok() && !dry_run(unwatched).ok()) {
          ++invalid;  // the API server refuses this manifest without the webhook too
          invalid_files.insert(file);
          continue;
        }
        REQUIRE(created.ok());
        simdjson::dom::parser stored_parser;
        simdjson::dom::element stored_object;
        REQUIRE(stored_parser.parse(created.body).get(stored_object) == simdjson::SUCCESS);
        simdjson::dom::parser patch_parser;
        REQUIRE(patch_parser.parse(patch_text).get(patch) == simdjson::SUCCESS);
        const simdjson::dom::array operations = patch.get_array().value();
        REQUIRE(operations.size() > 0);
        for (simdjson::dom::element op : operations) {
          std::string path = string_at(op, "/path");
          // A pod's scheduling group (the native profile's, and a root Job template's): an API server without the
          // GenericWorkload gate drops it from new pods and templates, as it serves no PodGroups then (the webhook
          // warns of that): dropped, not pruned.
          if (path.ends_with("/schedulingGroup") && !native_gangs_served) {
            simdjson::dom::element dropped;
            CHECK(stored_object.at_pointer(path).get(dropped) != simdjson::SUCCESS);
            ++dropped_scheduling_groups;
            continue;
          }
          if (path.size() > 2 && path.ends_with("/-")) {  // appended: the stored list's last entry
            simdjson::dom::array list;
            REQUIRE(stored_object.at_pointer(path.substr(0, path.size() - 2)).get_array().get(list) ==
                    simdjson::SUCCESS);
            REQUIRE(list.size() > 0);
            path = path.substr(0, path.size() - 1) + std::to_string(list.size() - 1);
          }
          INFO("patch operation " << simdjson::to_string(op));
          REQUIRE((string_at(op, "/op") == "add" || string_at(op, "/op") == "replace"));
          simdjson::dom::element at;
          REQUIRE(stored_object.at_pointer(path).get(at) == simdjson::SUCCESS);
          std::string where;
          const bool kept = contains(at, op["value"].value(), where);
          INFO("stored object at " << path << where);
          CHECK(kept);
        }
        CHECK(string_at(stored_object, "/metadata/annotations/workload-map.io~1gang-size") != "<missing>");
        ++kept_by_profile[profile];
        kinds_kept.insert(object.kind);
      }
  }
  for (const auto& [profile, kept] : kept_by_profile) {
    INFO(profile);
    CHECK(kept >= 100);
  }
  CHECK(kept_by_profile.size() == shipped.profile_names().size());
  if (!native_gangs_served) CHECK(dropped_scheduling_groups >= 2);  // the corpus's standalone Pods, under native
  // Every kind of the catalog but those ../shared/crds has no CRD for.
  for (const char* kind : {"JobSet", "LeaderWorkerSet", "Notebook", "SparkApplication", "TFJob", "XGBoostJob",
                           "PaddleJob", "JAXJob", "MPIJob", "TrainJob", "AppWrapper", "Workflow", "CronWorkflow",
                           "WorkflowTemplate", "RayCluster", "PodCliqueSet", "Sandbox", "DisaggregatedSet"}) {
    INFO(kind);
    CHECK(kinds_kept.count(kind));
  }
  CHECK(kinds_unserved.size() <= 1);  // NIMCache
  CHECK(skipped <= 2 * static_cast<int>(shipped.profile_names().size()));
  std::string refused_list, invalid_list;
  for (const auto& f : refused_files) refused_list += f + " ";
  for (const auto& f : invalid_files) invalid_list += f + " ";
  INFO("not understood: " << refused_list << "; refused by their own CRDs: " << invalid_list);
  // Not understood, so refused under failurePolicy Fail: the JobSet scaffold with an empty spec, and a TrainJob whose
  // runtime is not among the fixtures.
  CHECK(refused_count <= 2 * static_cast<int>(shipped.profile_names().size()));
  // Upstream samples their own CRDs refuse, with or without the webhook: two NIMService samples with
  // replicas beside scale, an AppWrapper and a Sandbox sample off their CRDs' schemas, an Argo example whose name
  // slipped into an annotation.
  CHECK(invalid <= 5 * static_cast<int>(shipped.profile_names().size()));
}
