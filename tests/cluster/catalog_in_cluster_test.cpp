// The catalog and the shipped manifests as the real API server sees them.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm::test;

TEST_CASE("every catalog definition is accepted by the real Karta CRD") {
  const Cluster& cluster = Cluster::get();
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("definitions"))) {
    if (entry.path().extension() != ".yaml") continue;
    CommandResult r = cluster.kubectl({"apply", "--server-side", "--dry-run=server", "-f", entry.path().string()});
    INFO(entry.path().filename().string() << ": " << r.err);
    CHECK(r.status == 0);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("the shipped manifests are accepted by the API server, and both overlays render") {
  const Cluster& cluster = Cluster::get();
  for (const char* overlay : {"", "/overlays/fail-closed", "/overlays/cert-manager"}) {
    CommandResult rendered = cluster.kubectl({"kustomize", source_path(std::string("manifests") + overlay)});
    INFO(overlay << ": " << rendered.err);
    REQUIRE(rendered.status == 0);
    if (std::string(overlay) != "") continue;
    // The base's own Karta CRD would replace the upstream one the fixture installed: leave it out. The objects
    // go into their namespace, which a dry run does not create: create it first.
    cluster.kubectl({"create", "namespace", "workload-map"});
    std::string documents;
    for (const auto& o : parse_yaml(rendered.out, "manifests"))
      if (o.kind != "CustomResourceDefinition" && o.kind != "Namespace")
        documents += simdjson::to_string(o.root) + "\n";
    CommandResult applied = cluster.kubectl({"apply", "--server-side", "--dry-run=server", "-f", "-"}, documents);
    INFO(applied.err);
    CHECK(applied.status == 0);
  }
}
