// What the API server does when the webhook is down, slower than its timeoutSeconds, or asked about an UPDATE:
// the shipped failurePolicy decides (base: Ignore, overlays/fail-closed: Fail), and an UPDATE never fights a
// field the API server holds immutable.
#include <signal.h>

#include <catch2/catch.hpp>

#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm::test;

namespace {

const std::string kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},
  "spec":{"replicas":1,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},
  "spec":{"containers":[{"name":"c","image":"busybox"}]}}}})";

std::string deployment(const std::string& name) {
  std::string d = kDeployment;
  return d.replace(d.find("NAME"), 4, name);
}

CommandResult create(const std::string& ns, const std::string& json) {
  return Cluster::get().kubectl({"create", "-n", ns, "-o", "json", "-f", "-"}, json);
}

std::string stored_scheduler(const CommandResult& created) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  REQUIRE(parser.parse(created.out).get(e) == simdjson::SUCCESS);
  return string_at(e, "/spec/template/spec/schedulerName");
}

std::string default_policy() {
  return policy_with_rules(R"(- name: default
  namespaces: ["*"]
  kinds: ["*"]
  profile: kai
  queue: {default: default}
)");
}

}  // namespace

TEST_CASE("with the webhook stopped, the base admits unedited and the fail-closed overlay refuses") {
  const std::string ns = make_namespace("failure");
  {
    RegisteredWebhook webhook(default_policy(), "base");
    CommandResult edited = create(ns, deployment("while-up"));
    REQUIRE(edited.status == 0);
    CHECK(stored_scheduler(edited) == "kai-scheduler");
    REQUIRE(webhook.server().stop() == 0);
    CommandResult admitted = create(ns, deployment("while-down"));
    INFO(admitted.err);
    REQUIRE(admitted.status == 0);
    CHECK(stored_scheduler(admitted) == "default-scheduler");
  }
  {
    RegisteredWebhook webhook(default_policy(), "overlays/fail-closed");
    REQUIRE(webhook.server().stop() == 0);
    CommandResult refused = create(ns, deployment("fail-closed"));
    INFO(refused.err);
    CHECK(refused.status != 0);
    CHECK(refused.err.find("failed calling webhook \"mutate.workload-map.io\"") != std::string::npos);
    CHECK(Cluster::get().kubectl({"get", "deployment", "fail-closed", "-n", ns}).status != 0);
  }
  unregister_webhooks();
}

TEST_CASE("a webhook slower than timeoutSeconds: admitted after the timeout under Ignore, refused under Fail") {
  const std::string ns = make_namespace("slow");
  for (const std::string overlay : {"base", "overlays/fail-closed"}) {
    INFO(overlay);
    RegisteredWebhook webhook(default_policy(), overlay);
    // Frozen: connections are accepted by the kernel, never answered.
    REQUIRE(kill(webhook.server().pid(), SIGSTOP) == 0);
    const auto started = std::chrono::steady_clock::now();
    CommandResult r = create(ns, deployment(overlay == "base" ? "slow-ignore" : "slow-fail"));
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count();
    kill(webhook.server().pid(), SIGCONT);
    INFO(r.err);
    // timeoutSeconds: 5 as shipped, for each of the two webhooks the request passes.
    CHECK(seconds >= 5);
    CHECK(seconds <= 25);
    if (overlay == "base") {
      REQUIRE(r.status == 0);
      CHECK(stored_scheduler(r) == "default-scheduler");
    } else {
      CHECK(r.status != 0);
      CHECK(
          (r.err.find("context deadline exceeded") != std::string::npos || r.err.find("timeout") != std::string::npos));
    }
  }
  unregister_webhooks();
}

TEST_CASE("UPDATEs: scaling a stored RayCluster, and editing a Job whose pod template is immutable") {
  const Cluster& cluster = Cluster::get();
  const std::string ns = make_namespace("update");
  const std::string rules = R"(- name: default
  namespaces: ["*"]
  kinds: ["*"]
  profile: kai
  queue: {default: default}
  mutateOnUpdate: true
)";
  RegisteredWebhook webhook(policy_with_rules(rules));
  simdjson::dom::parser parser;

  SECTION("a RayCluster scaled from 1 to 3 workers") {
    const std::string raycluster = corpus_dir() + "/raycluster/ray-cluster.sample.yaml";
    CommandResult created = cluster.kubectl({"create", "-n", ns, "-f", raycluster});
    INFO(created.err);
    REQUIRE(created.status == 0);
    auto before = cluster.get_json(parser, {"get", "raycluster", "-n", ns});
    const std::string name = string_at(before, "/items/0/metadata/name");
    const std::string pods_before = string_at(before, "/items/0/metadata/annotations/workload-map.io~1pods");
    CommandResult scaled = cluster.kubectl({"patch", "raycluster", name, "-n", ns, "--type", "json", "-p",
                                            R"([{"op":"replace","path":"/spec/workerGroupSpecs/0/replicas","value":3},
                                                {"op":"replace","path":"/spec/workerGroupSpecs/0/maxReplicas","value":5}])"});
    INFO(scaled.err);
    REQUIRE(scaled.status == 0);
    auto after = cluster.get_json(parser, {"get", "raycluster", name, "-n", ns});
    CHECK(std::stoi(string_at(after, "/metadata/annotations/workload-map.io~1pods")) == std::stoi(pods_before) + 2);
  }
  SECTION("a Job's labels edited after the policy added a pod label") {
    CommandResult created = create(ns, R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"fixed"},
      "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
    INFO(created.err);
    REQUIRE(created.status == 0);
    webhook.set_policy(policy_with_rules(rules + "  podLabels: {added-later: \"yes\"}\n"));
    // Wait until the new policy is live: a new Job's template gets the label.
    REQUIRE(eventually(
        [&] {
          CommandResult r = cluster.kubectl({"create", "--dry-run=server", "-n", ns, "-o", "json", "-f", "-"},
                                            R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"probe"},
        "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
          return r.out.find("added-later") != std::string::npos;
        },
        std::chrono::seconds(15)));
    CommandResult labelled = cluster.kubectl({"label", "job", "fixed", "-n", ns, "owner=someone"});
    INFO(labelled.err);
    CHECK(labelled.status == 0);
  }
}
