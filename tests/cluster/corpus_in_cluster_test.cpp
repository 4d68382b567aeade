// Every upstream workload of ../shared/corpus created through the real API server with the webhook registered
// as shipped: what the API server stored carries every edit the webhook's patch made (the CRD's structural
// schema pruned none of it), and the workload's summary annotations.
#include <catch2/catch.hpp>
#include <iterator>
#include <set>
#include <sstream>

#include "base/json/json_writer.h"
#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

// `stored` holds `expected`: the same scalars, every key of each expected object, arrays element by element.
// On a difference, `where` says where.
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
  if (simdjson::to_string(stored) == simdjson::to_string(expected)) return true;
  where = ": stored " + simdjson::to_string(stored) + ", patched " + simdjson::to_string(expected);
  return false;
}

// Served versions whose objects the API server cannot store without an operator's conversion webhook.
bool needs_conversion_webhook(const std::string& api_version) { return api_version == "nvidia.com/v1alpha1"; }

}  // namespace

TEST_CASE("every corpus workload is stored with all of the webhook's edits, none pruned by its CRD") {
  const Cluster& cluster = Cluster::get();
  RegisteredWebhook webhook(policy_with_rules(R"(- name: everything
  namespaces: ["*"]
  kinds: ["*"]
  profile: kai
  queue: {fromLabel: kai.scheduler/queue, default: research}
  podLabels: {team: corpus}
  podAnnotations: {workload-map.io/checked: "yes"}
  failurePolicy: Fail
)"));
  HttpsClient direct(webhook.server().port());
  int stored = 0, skipped = 0, refused_count = 0, invalid = 0, unserved = 0;
  // Where the webhook is not called: to tell a manifest its own CRD refuses from one the webhook's patch broke.
  const std::string unwatched = "corpus-unwatched";
  REQUIRE(cluster.kubectl({"create", "namespace", unwatched}).status == 0);
  // Kinds this cluster serves (group|kind): the test cluster installs the CRDs of ../shared/crds, which has none for
  // some catalog kinds (NIMCache).
  std::set<std::string> served;
  {
    CommandResult resources = cluster.kubectl({"api-resources", "--no-headers"});
    REQUIRE(resources.status == 0);
    std::istringstream lines(resources.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::vector<std::string> w{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
      if (w.size() < 4) continue;
      const std::string& api_version = w[w.size() - 3];
      const auto slash = api_version.find('/');
      served.insert((slash == std::string::npos ? "" : api_version.substr(0, slash)) + "|" + w.back());
    }
  }
  for (const auto& file : corpus_files()) {
    const std::string ns = make_namespace("corpus");
    for (auto& object : parse_file(corpus_dir() + "/" + file)) {
      if (!builtin_catalog().find(object.api_version, object.kind).definition) continue;
      INFO(file << ": " << object.kind << " " << object.name);
      const auto slash = object.api_version.find('/');
      if (!served.count((slash == std::string::npos ? "" : object.api_version.substr(0, slash)) + "|" + object.kind)) {
        WARN(file << ": no CRD for " << object.kind << " in this cluster (../shared/crds has none): not created");
        ++unserved;
        continue;
      }
      if (needs_conversion_webhook(object.api_version)) {
        WARN(file << ": " << object.api_version << " is converted to the storage version by its operator's "
                  << "conversion webhook, which this cluster does not run: not created");
        ++skipped;
        continue;
      }
      // Created in a namespace of the test's own, whatever the manifest names.
      CommandResult json = run_command({"jq", "-c", "del(.metadata.namespace)"}, simdjson::to_string(object.root));
      REQUIRE(json.status == 0);

      // The patch the webhook makes for this object, asked directly ...
      simdjson::dom::parser review_parser;
      simdjson::dom::element review, patch;
      REQUIRE(review_parser.parse(direct.post("/mutate", admission_review(json.out, ns)).body).get(review) ==
              simdjson::SUCCESS);
      if (string_at(review, "/response/status/message") != "<missing>") {
        // Not understood (a sample with an empty spec): under failurePolicy Fail the API server refuses it with
        // the webhook's reason.
        const std::string reason = string_at(review, "/response/status/message");
        CommandResult refused = cluster.kubectl({"create", "-n", ns, "-f", "-"}, json.out);
        INFO(refused.err);
        CHECK(refused.status != 0);
        CHECK(refused.err.find(reason) != std::string::npos);
        ++refused_count;
        continue;
      }
      std::string patch_text = base64_decode(string_at(review, "/response/patch"));
      simdjson::dom::parser patch_parser;
      REQUIRE(patch_parser.parse(patch_text).get(patch) == simdjson::SUCCESS);
      const simdjson::dom::array operations = patch.get_array().value();
      REQUIRE(operations.size() > 0);

      // ... and what the API server stored when kubectl created it, through the same webhook.
      CommandResult created = cluster.kubectl({"create", "-n", ns, "-o", "json", "-f", "-"}, json.out);
      INFO(created.err);
      if (created.status != 0 &&
          cluster.kubectl({"create", "--dry-run=server", "-n", unwatched, "-f", "-"}, json.out).status != 0) {
        WARN(file << ": the API server refuses this manifest without the webhook too: " << created.err);
        ++invalid;
        continue;
      }
      REQUIRE(created.status == 0);
      simdjson::dom::parser stored_parser;
      simdjson::dom::element stored_object;
      REQUIRE(stored_parser.parse(created.out).get(stored_object) == simdjson::SUCCESS);

      for (simdjson::dom::element op : operations) {
        const std::string path = string_at(op, "/path");
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
      ++stored;
    }
  }
  CHECK(stored >= 48);
  CHECK(skipped <= 2);
  CHECK(unserved <= 4);  // the NIMCache beside each NIMService sample
  CHECK(refused_count <= 1);
  CHECK(invalid <=
        3);  // upstream samples their own CRDs refuse (JobSet rule without name, NIMService replicas with scale)
}
