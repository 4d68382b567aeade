// The patch for every corpus workload applies with kubectl's JSON Patch (the API server's own
// library), and afterwards every pod template carries the scheduler name, labels and annotations, and nothing else
// differs: no field removed or changed but the edited ones, no object created that the operator would read as a
// component (a Milvus coordinator, say).
#include <catch2/catch.hpp>
#include <set>

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"
#include "mapper/view/pod_edits.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string string_at(simdjson::dom::element root, const std::string& pointer) {
  std::string_view s;
  if (root.at_pointer(pointer).get_string().get(s) != simdjson::SUCCESS) return "<missing>";
  return std::string(s);
}

bool unlocated_pod_fields(const view::InstanceView& i) {
  return !i.fields.scheduler_name && !i.fields.priority_class_name && !i.fields.labels && !i.fields.annotations;
}

// Where a patch may write: the edited fields, the label and annotation maps that hold them, and anything inside an
// existing pod template or pod spec (its metadata). `created` lists, per file, other objects a patch may create.
struct Allowed {
  std::set<std::string> leaves, maps, created;
  std::set<std::string> grows;  // lists that may get one item more at their end
  std::vector<std::string> inside;

  bool may_create(const std::string& pointer) const {
    if (maps.count(pointer) || created.count(pointer)) return true;
    // The metadata that holds a label or annotation map (a template's metadata, Dynamo's extraPodMetadata).
    const std::string last = pointer.substr(pointer.rfind('/') + 1);
    if (last.size() >= 8 && (last.ends_with("metadata") || last.ends_with("Metadata")))
      for (const auto& map : maps)
        if (map.rfind(pointer + "/", 0) == 0) return true;
    for (const auto& location : inside)
      if (pointer.rfind(location + "/", 0) == 0) return true;
    return false;
  }
};

// Every difference between the object and its patched form, as a problem unless `allowed` has it: nothing removed,
// nothing changed but an edited field, no object created where the workload's operator would read it as something.
void differences(simdjson::dom::element before, simdjson::dom::element after, const std::string& pointer,
                 const Allowed& allowed, bool created, std::vector<std::string>& problems) {
  if (created) {
    if (after.is_object()) {
      if (!allowed.may_create(pointer)) problems.push_back("creates " + pointer);
      // A named object: value_unsafe() of a temporary result is a reference into it.
      const simdjson::dom::object members = after.get_object().value_unsafe();
      for (auto [key, value] : members)
        differences(before, value, json::pointer_child(pointer, key), allowed, true, problems);
    } else if (!allowed.leaves.count(pointer)) {
      problems.push_back("adds " + pointer);
    }
    return;
  }
  if (before.is_object() && after.is_object()) {
    const simdjson::dom::object old_members = before.get_object().value_unsafe();
    const simdjson::dom::object new_members = after.get_object().value_unsafe();
    for (auto [key, value] : old_members) {
      simdjson::dom::element now;
      if (new_members.at_key(key).get(now) != simdjson::SUCCESS)
        problems.push_back("removes " + json::pointer_child(pointer, key));
      else
        differences(value, now, json::pointer_child(pointer, key), allowed, false, problems);
    }
    for (auto [key, value] : new_members) {
      simdjson::dom::element old;
      if (old_members.at_key(key).get(old) != simdjson::SUCCESS)
        differences(before, value, json::pointer_child(pointer, key), allowed, true, problems);
    }
  } else if (before.is_array() && after.is_array()) {
    simdjson::dom::array a = before.get_array().value_unsafe(), b = after.get_array().value_unsafe();
    if (a.size() != b.size() && !(allowed.grows.count(pointer) && b.size() == a.size() + 1))
      return problems.push_back("resizes " + pointer);
    for (size_t i = 0; i < a.size(); ++i)
      differences(a.at(i).value_unsafe(), b.at(i).value_unsafe(), pointer + "/" + std::to_string(i), allowed, false,
                  problems);
  } else if (json::element_json(before) != json::element_json(after) && !allowed.leaves.count(pointer)) {
    problems.push_back("changes " + pointer);
  }
}

}  // namespace

TEST_CASE("kubectl applies every corpus and upstream fixture workload's patch, and every pod template is edited") {
  if (!test::have_command("kubectl")) {
    WARN("kubectl is not installed: skipped");
    return;
  }
  const view::PodEdits edits{"wm-test-scheduler",
                             std::nullopt,
                             {{"workload-map.test/gang", "g1"}, {"odd/key~name", "x"}},
                             {{"workload-map.test/min-member", "3"}}};
  const view::RootEdits root{{}, {{"workload-map.test/pods", "7"}}};
  int patched_workloads = 0;
  const std::string fixtures = test::source_path("tests/fixtures/upstream");
  std::vector<std::pair<std::string, std::string>> files;  // directory, file
  for (const auto& file : test::corpus_files()) files.emplace_back(test::corpus_dir(), file);
  for (const auto& file : test::yaml_files_under(fixtures)) files.emplace_back(fixtures, file);
  // Objects that workloads refer to (a TrainJob's runtime), from among the fixtures.
  view::ReferenceStore references;
  std::vector<std::string> paths;
  for (const auto& [dir, file] : files) paths.push_back(dir + "/" + file);
  test::hold_objects(references, paths);
  const view::ViewOptions options{.catalog = &test::builtin_catalog(), .references = &references};
  for (const auto& [dir, file] : files) {
    for (auto& object : test::parse_file(dir + "/" + file)) {
      auto match = test::builtin_catalog().find(object.api_version, object.kind);
      if (!match.definition) continue;
      DYNAMIC_SECTION(file << " " << object.kind << " " << object.name) {
        view::WorkloadView view = view::build_view(*match.definition, *object.doc, options);
        std::vector<std::string> warnings;
        std::string patch = view::make_patch(view, *object.doc, edits, root, warnings);
        // Instances of a kind whose API has no pod fields (NIMCache) get one warning each, and nothing else does.
        size_t unlocated = 0;
        for (const auto& c : view.components)
          for (const auto& i : c.instances) unlocated += i.shape != view::PodShape::Logical && unlocated_pod_fields(i);
        // Pods from a referenced object (a TrainJob's runtime) are edited through the object's own entry
        // (Definition::referenced_pod_edits), which has no place for a scheduler name: one warning each.
        // Or, shared by every pod, in the one place the operator gives them all (an Argo Workflow's spec.podMetadata).
        const catalog::ReferencedPodEdits* referenced =
            view.resolved ? &*match.definition->referenced_pod_edits : nullptr;
        const auto* shared = referenced && referenced->shared ? &*referenced->shared : nullptr;
        const catalog::ReferencedPodEdits* entry = shared ? nullptr : referenced;
        for (const auto& w : warnings) UNSCOPED_INFO("warning: " << w);
        CHECK(warnings.size() == (shared ? 0 : unlocated));
        for (const auto& w : warnings)
          CHECK(w.find(entry ? ": schedulerName and priorityClassName not set: the pods' template is in a referenced"
                             : ": pods not edited: the definition locates no pod field") != std::string::npos);

        std::string input = test::write_temp("object.json", json::element_json(object.root));
        std::string patch_file = test::write_temp("patch.json", patch);
        std::string out;
        int status = test::run(
            "kubectl patch --local --type json -f " + input + " -p \"$(cat " + patch_file + ")\" -o json 2>&1", out);
        INFO("patch: " << patch << "\nkubectl: " << out.substr(0, 2000));
        REQUIRE(status == 0);

        auto patched = test::parse_json(out);
        view::WorkloadView after = view::build_view(*match.definition, *patched.doc, options);
        REQUIRE(after.pod_template_count() == view.pod_template_count());
        for (const auto& c : after.components)
          for (const auto& i : c.instances) {
            if (i.shape == view::PodShape::Logical || unlocated_pod_fields(i)) continue;
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
        for (const auto& at : view.child_metadata)
          CHECK(string_at(patched.root, at + "/annotations/workload-map.test~1pods") == "7");
        if (shared) {
          CHECK(string_at(patched.root, shared->scheduler_name) == "wm-test-scheduler");
          CHECK(string_at(patched.root, shared->pod_metadata + "/labels/workload-map.test~1gang") == "g1");
          CHECK(string_at(patched.root, shared->pod_metadata + "/annotations/workload-map.test~1min-member") == "3");
        }
        if (entry) {
          // workload-map's entry, holding every instance's pod labels and annotations (TrainJob: runtimePatches).
          simdjson::dom::array list;
          REQUIRE(patched.root.at_pointer(entry->list).get_array().get(list) == simdjson::SUCCESS);
          const simdjson::dom::element ours = list.at(list.size() - 1).value_unsafe();
          for (const auto& [key, value] : entry->entry) CHECK(string_at(ours, json::pointer_child("", key)) == value);
          simdjson::dom::array items;
          REQUIRE(ours.at_pointer(entry->instance_list).get_array().get(items) == simdjson::SUCCESS);
          CHECK(items.size() == view.pod_template_count());
          for (simdjson::dom::element item : items) {
            INFO(json::element_json(item));
            CHECK_FALSE(string_at(item, json::pointer_child("", entry->instance_key)).empty());
            CHECK(string_at(item, entry->pod_metadata + "/labels/workload-map.test~1gang") == "g1");
            CHECK(string_at(item, entry->pod_metadata + "/annotations/workload-map.test~1min-member") == "3");
          }
        }

        // The patched object differs from the original only at the edited fields.
        Allowed allowed;
        allowed.leaves.insert("/metadata/annotations/workload-map.test~1pods");
        allowed.maps.insert("/metadata/annotations");
        if (file == "milvus/milvus_default.yaml")  // no spec at all: spec.components' shared fields are created
          allowed.created = {"/spec", "/spec/components"};
        for (const auto& at : view.child_metadata) {  // the workload's own annotations, copied to its children too
          allowed.maps.insert(at + "/annotations");
          allowed.leaves.insert(at + "/annotations/workload-map.test~1pods");
        }
        if (entry) {  // the entry is added (and its list, if missing)
          allowed.leaves.insert(entry->list);
          allowed.grows.insert(entry->list);
        }
        if (shared) {
          allowed.leaves.insert(shared->scheduler_name);
          for (const auto& [where, entries] : {std::pair{shared->pod_metadata + "/labels", edits.labels},
                                               std::pair{shared->pod_metadata + "/annotations", edits.annotations}}) {
            allowed.maps.insert(where);
            for (const auto& [key, value] : entries) allowed.leaves.insert(json::pointer_child(where, key));
          }
        }
        for (const auto& c : view.components)
          for (const auto& i : c.instances) {
            if (i.shape == view::PodShape::PodTemplate || i.shape == view::PodShape::PodSpec)
              allowed.inside.push_back(i.location);
            if (i.fields.scheduler_name) allowed.leaves.insert(*i.fields.scheduler_name);
            for (const auto& [where, entries] :
                 {std::pair{i.fields.labels, edits.labels}, std::pair{i.fields.annotations, edits.annotations}}) {
              if (!where) continue;
              allowed.maps.insert(*where);
              for (const auto& [key, value] : entries) allowed.leaves.insert(json::pointer_child(*where, key));
            }
          }
        std::vector<std::string> problems;
        differences(object.doc->root(), patched.doc->root(), "", allowed, false, problems);
        for (const auto& problem : problems) UNSCOPED_INFO(problem);
        CHECK(problems.empty());

        // Applying the same edits again changes nothing.
        std::vector<std::string> again_warnings;
        CHECK(view::make_patch(after, *patched.doc, edits, root, again_warnings) == "[]");
        ++patched_workloads;
      }
    }
  }
}
