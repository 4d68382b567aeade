// manifests/ renders offline with `kubectl kustomize` (kubectl apply --dry-run needs a server), and
// what it renders is checked here: the objects a cluster-wide webhook needs, webhook rules that
// cover every definition of the catalog, and a policy ConfigMap the server accepts.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "policy/policy.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

struct Rendered {
  std::vector<ParsedObject> objects;
  const ParsedObject* find(const std::string& kind, const std::string& name = "") const {
    for (const auto& o : objects)
      if (o.kind == kind && (name.empty() || o.name == name)) return &o;
    return nullptr;
  }
};

Rendered render(const std::string& dir) {
  std::string out;
  int status = run("kubectl kustomize " + source_path(dir) + " 2>&1", out);
  INFO(out.substr(0, 2000));
  REQUIRE(status == 0);
  return {parse_yaml(out, dir)};
}

std::string str(simdjson::dom::element e, const char* pointer) {
  std::string_view s;
  return e.at_pointer(pointer).get_string().get(s) ? "" : std::string(s);
}

std::string plural(std::string kind) {
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kind + (kind.back() == 's' || kind.back() == 'x' ? "es" : "s");  // milvuses, sandboxes
}

void check_webhooks(const Rendered& r, const char* kind, const char* path, const char* failure_policy) {
  const ParsedObject* config = r.find(kind, "workload-map");
  REQUIRE(config);
  simdjson::dom::element hook = config->root.at_pointer("/webhooks/0").value();
  CHECK(str(hook, "/clientConfig/service/path") == path);
  CHECK(str(hook, "/clientConfig/service/name") == "workload-map");
  CHECK(str(hook, "/sideEffects") == "None");
  CHECK(hook.at_pointer("/timeoutSeconds").get_int64().value() == 5);
  CHECK(str(hook, "/admissionReviewVersions/0") == "v1");
  CHECK(str(hook, "/failurePolicy") == failure_policy);
  // simdjson arrays are views: name them, since a range-for over a temporary result would dangle.
  auto array = [](simdjson::dom::element e, const char* pointer) {
    simdjson::dom::array a;
    REQUIRE(e.at_pointer(pointer).get_array().get(a) == simdjson::SUCCESS);
    return a;
  };
  std::set<std::string> excluded;
  for (auto e : array(hook, "/namespaceSelector/matchExpressions"))
    if (str(e, "/operator") == "NotIn")
      for (auto v : array(e, "/values")) excluded.insert(std::string(v.get_string().value()));
  CHECK(excluded.count("kube-system"));
  CHECK(excluded.count("workload-map"));

  std::set<std::pair<std::string, std::string>> covered;
  for (auto rule : array(hook, "/rules"))
    for (auto group : array(rule, "/apiGroups"))
      for (auto resource : array(rule, "/resources"))
        covered.emplace(std::string(group.get_string().value()), std::string(resource.get_string().value()));
  for (const auto& d : builtin_catalog().definitions()) {
    INFO(kind << " rules cover " << d->gvk.str());
    CHECK(covered.count({d->gvk.group, plural(d->gvk.kind)}));
  }
}

}  // namespace

TEST_CASE("the base renders every object a cluster-wide webhook needs") {
  if (!have_command("kubectl")) {
    WARN("kubectl is not installed: skipped");
    return;
  }
  Rendered base = render("manifests");
  for (const char* kind :
       {"Namespace", "ServiceAccount", "Deployment", "Service", "PodDisruptionBudget", "ConfigMap",
        "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "CustomResourceDefinition"})
    CHECK(base.find(kind));
  const ParsedObject* deployment = base.find("Deployment", "workload-map");
  REQUIRE(deployment);
  simdjson::dom::element spec = deployment->root["spec"].value();
  CHECK(spec["replicas"].get_int64().value() == 2);
  CHECK(str(spec, "/template/spec/containers/0/readinessProbe/httpGet/path") == "/readyz");
  CHECK(str(spec, "/template/spec/containers/0/livenessProbe/httpGet/path") == "/healthz");
  CHECK(str(spec, "/template/spec/containers/0/resources/requests/memory") == "64Mi");
  CHECK_FALSE(spec.at_pointer("/template/spec/affinity/podAntiAffinity").error());
  CHECK(str(deployment->root, "/metadata/namespace") == "workload-map");
  CHECK(str(base.find("PodDisruptionBudget")->root, "/metadata/namespace") == "workload-map");
  check_webhooks(base, "MutatingWebhookConfiguration", "/mutate", "Ignore");
  check_webhooks(base, "ValidatingWebhookConfiguration", "/validate", "Ignore");

  // The policy ConfigMap is one the server loads.
  std::string policy = str(base.find("ConfigMap", "workload-map-policy")->root, "/data/policy.yaml");
  yaml::Diagnostics errors;
  CHECK(policy::Policy::load(policy, "ConfigMap workload-map-policy", errors).has_value());
  for (const auto& e : errors) FAIL(e.str());
  CHECK(str(base.find("CustomResourceDefinition")->root, "/spec/names/kind") == "Karta");
}

TEST_CASE("the overlays: cert-manager injects the CA, fail-closed refuses without the webhook") {
  if (!have_command("kubectl")) return;
  Rendered cm = render("manifests/overlays/cert-manager");
  const ParsedObject* certificate = cm.find("Certificate", "workload-map");
  REQUIRE(certificate);
  CHECK(str(certificate->root, "/spec/secretName") == "workload-map-tls");
  CHECK(str(certificate->root, "/spec/dnsNames/0") == "workload-map.workload-map.svc");
  for (const char* kind : {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"})
    CHECK(str(cm.find(kind)->root, "/metadata/annotations/cert-manager.io~1inject-ca-from") ==
          "workload-map/workload-map");
  Rendered closed = render("manifests/overlays/fail-closed");
  check_webhooks(closed, "MutatingWebhookConfiguration", "/mutate", "Fail");
  check_webhooks(closed, "ValidatingWebhookConfiguration", "/validate", "Fail");
}

namespace {

// Every string under a key named "namespace", anywhere in `e`.
void namespace_fields(simdjson::dom::element e, std::vector<std::string>& out) {
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (!e.get_object().get(object)) {
    for (auto field : object) {
      std::string_view value;
      if (field.key == "namespace" && !field.value.get_string().get(value)) out.emplace_back(value);
      namespace_fields(field.value, out);
    }
  } else if (!e.get_array().get(array)) {
    for (auto item : array) namespace_fields(item, out);
  }
}

}  // namespace

TEST_CASE("the namespace overlay moves every reference to workload-map's namespace") {
  if (!have_command("kubectl")) return;
  Rendered moved = render("manifests/overlays/namespace");
  std::vector<std::string> namespaces;
  for (const auto& o : moved.objects) namespace_fields(o.root, namespaces);
  CHECK(namespaces.size() >= 12);  // objects, webhook services, binding subjects
  for (const auto& ns : namespaces) CHECK(ns == "gpu-admission");
  CHECK(moved.find("Namespace", "gpu-admission"));
  for (const char* kind : {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"})
    CHECK(str(moved.find(kind)->root, "/webhooks/0/namespaceSelector/matchExpressions/1/values/1") == "gpu-admission");
}
