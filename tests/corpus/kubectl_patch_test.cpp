// The patch for every corpus workload applies with kubectl's JSON Patch (the API server's own
// library), and afterwards every pod template carries the scheduler name, labels and annotations.
#include <catch2/catch.hpp>

#include "mapper/json_writer.h"
#include "mapper/pod_edits.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string string_at(simdjson::dom::element root, const std::string& pointer) {
  std::string_view s;
  if (root.at_pointer(pointer).get_string().get(s) != simdjson::SUCCESS) return "<missing>";
  return std::string(s);
}

bool unlocated_pod_fields(const InstanceView& i) {
  return !i.fields.scheduler_name && !i.fields.priority_class_name && !i.fields.labels && !i.fields.annotations;
}

}  // namespace

TEST_CASE("kubectl applies every corpus workload's patch, and every pod template is edited") {
  if (!test::have_command("kubectl")) {
    WARN("kubectl is not installed: skipped");
    return;
  }
  const PodEdits edits{"wm-test-scheduler",
                       std::nullopt,
                       {{"workload-map.test/gang", "g1"}, {"odd/key~name", "x"}},
                       {{"workload-map.test/min-member", "3"}}};
  const RootEdits root{{}, {{"workload-map.test/pods", "7"}}};
  int patched_workloads = 0;
  for (const auto& file : test::corpus_files()) {
    for (auto& object : test::parse_file(test::corpus_dir() + "/" + file)) {
      auto match = test::builtin_catalog().find(object.api_version, object.kind);
      if (!match.definition) continue;
      DYNAMIC_SECTION(file << " " << object.kind << " " << object.name) {
        WorkloadView view = build_view(*match.definition, *object.doc);
        std::vector<std::string> warnings;
        std::string patch = make_patch(view, *object.doc, edits, root, warnings);
        // Instances of a kind whose API has no pod fields (NIMCache) get one warning each, and nothing else does.
        size_t unlocated = 0;
        for (const auto& c : view.components)
          for (const auto& i : c.instances) unlocated += i.shape != PodShape::Logical && unlocated_pod_fields(i);
        for (const auto& w : warnings) UNSCOPED_INFO("warning: " << w);
        CHECK(warnings.size() == unlocated);
        for (const auto& w : warnings) CHECK(w.find(": pods not edited: the definition locates no pod field") != std::string::npos);

        std::string input = test::write_temp("object.json", element_json(object.root));
        std::string patch_file = test::write_temp("patch.json", patch);
        std::string out;
        int status = test::run(
            "kubectl patch --local --type json -f " + input + " -p \"$(cat " + patch_file + ")\" -o json 2>&1", out);
        INFO("patch: " << patch << "\nkubectl: " << out.substr(0, 2000));
        REQUIRE(status == 0);

        auto patched = test::parse_json(out);
        WorkloadView after = build_view(*match.definition, *patched.doc);
        REQUIRE(after.pod_template_count() == view.pod_template_count());
        for (const auto& c : after.components)
          for (const auto& i : c.instances) {
            if (i.shape == PodShape::Logical || unlocated_pod_fields(i)) continue;
            INFO("component " << c.name << " instance " << i.id);
            REQUIRE(i.fields.scheduler_name);
            CHECK(string_at(patched.root, *i.fields.scheduler_name) == "wm-test-scheduler");
            REQUIRE(i.fields.labels);
            CHECK(string_at(patched.root, *i.fields.labels + "/workload-map.test~1gang") == "g1");
            CHECK(string_at(patched.root, *i.fields.labels + "/odd~1key~0name") == "x");
            REQUIRE(i.fields.annotations);
            CHECK(string_at(patched.root, *i.fields.annotations + "/workload-map.test~1min-member") == "3");
          }
        CHECK(string_at(patched.root, "/metadata/annotations/workload-map.test~1pods") == "7");

        // Applying the same edits again changes nothing.
        std::vector<std::string> again_warnings;
        CHECK(make_patch(after, *patched.doc, edits, root, again_warnings) == "[]");
        ++patched_workloads;
      }
    }
  }
}
