// The native evaluator and libjq give the same results for every expression of every built-in
// definition over every corpus object (objects of other kinds included: errors must agree too).
#include <catch2/catch.hpp>
#include <set>

#include "mapper/catalog/definition.h"
#include "tests/support/engine_compare.h"
#include "tests/support/test_support.h"

using namespace wm;

TEST_CASE("native path evaluation and libjq agree on the whole corpus") {
  std::vector<test::ParsedObject> objects;
  for (const auto& file : test::corpus_files())
    for (auto& o : test::parse_file(test::corpus_dir() + "/" + file)) objects.push_back(std::move(o));
  REQUIRE(objects.size() >= 60);

  size_t native_paths = 0, jq_only = 0, comparisons = 0;
  for (const auto& definition : test::builtin_catalog().definitions()) {
    catalog::for_each_object_path(*definition, [&](const std::string& field, const catalog::Path& path) {
      if (!path->is_native()) {
        ++jq_only;
        return;
      }
      ++native_paths;
      for (auto& object : objects) {
        for (bool pointers : {false, true}) {
          auto native = path->evaluate_native(*object.doc, pointers);
          if (!native) continue;  // deferred to jq at run time: nothing to compare
          json::EvalResult jq = path->evaluate_jq(*object.doc, pointers);
          // The watchdog's wall-clock budget (jq_watchdog.h) can run out on a loaded machine (seen once in CI, with
          // the cluster suites beside it): that says nothing of what jq computes, so such a run is tried again.
          for (int retry = 0; retry < 3 && jq.error.rfind("stopped:", 0) == 0; ++retry)
            jq = path->evaluate_jq(*object.doc, pointers);
          INFO(definition->name << " " << field << ": " << path->source() << "\non " << object.source.file << ":"
                                << object.source.line << (pointers ? " (with pointers)" : "")
                                << (jq.ok() ? "" : "\njq: " + jq.error));
          const auto [native_text, jq_text] = test::comparable_pair(*native, jq, pointers);
          CHECK(native_text == jq_text);
          ++comparisons;
        }
      }
    });
  }
  INFO(native_paths << " native expressions, " << jq_only << " jq-only, " << comparisons << " comparisons");
  CHECK(native_paths >= 60);
  CHECK(comparisons >= 5000);
}

// Counting pods and gangs happens on every admission: no definition of the catalog sends it to libjq, but for those
// listed (outside the native subset: a clique's scaling group is found with select/index, and so on).
TEST_CASE("every replica and minimum path of the built-in catalog runs on the native evaluator") {
  // Volcano Job's minimum shares the job's minAvailable over its tasks in order, a loop (reduce, foreach) the native
  // evaluator does not have: it runs in jq, for Volcano Jobs only, on a spec.tasks checked to be a list first.
  // Which Milvus Deployments run depends on the image's version, a string match (split, test) the native evaluator
  // does not have: those run in jq, for Milvus objects only. An Argo workflow's pods per template follow its calls from
  // the entrypoint down, level by level (reduce): in jq, for Argo objects only.
  const std::set<std::string> known = {"argoproj-io-v1alpha1-workflow step.replicasPath",
                                       "argoproj-io-v1alpha1-workflow step.minReplicasPath",
                                       "argoproj-io-v1alpha1-workflowtemplate step.replicasPath",
                                       "argoproj-io-v1alpha1-workflowtemplate step.minReplicasPath",
                                       "argoproj-io-v1alpha1-cronworkflow step.replicasPath",
                                       "argoproj-io-v1alpha1-cronworkflow step.minReplicasPath",
                                       "grove-io-v1alpha1-podcliqueset clique.minReplicasPath",
                                       "batch-volcano-sh-v1alpha1-job task.minReplicasPath",
                                       "milvus-io-v1beta1-milvus rootcoord.replicasPath",
                                       "milvus-io-v1beta1-milvus datacoord.replicasPath",
                                       "milvus-io-v1beta1-milvus querycoord.replicasPath",
                                       "milvus-io-v1beta1-milvus indexcoord.replicasPath",
                                       "milvus-io-v1beta1-milvus indexnode.replicasPath",
                                       "milvus-io-v1beta1-milvus mixcoord.replicasPath",
                                       "milvus-io-v1beta1-milvus streamingnode.replicasPath"};
  std::vector<std::string> jq_only;
  for (const auto& definition : test::builtin_catalog().definitions())
    catalog::for_each_object_path(*definition, [&](const std::string& field, const catalog::Path& path) {
      if (field.find("ReplicasPath") != std::string::npos && !path->is_native() &&
          !known.count(definition->name + " " + field))
        jq_only.push_back(definition->name + " " + field + ": " + path->source());
    });
  std::string listed;
  for (const auto& p : jq_only) listed += p + "\n";
  INFO(listed);
  CHECK(jq_only.empty());
}
