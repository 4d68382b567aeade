#include "tests/fuzz/json_mutation.h"

extern "C" {
#include <jv.h>
}

#include <simdjson.h>

#include <cstring>
#include <vector>

namespace wm::fuzz {

namespace {

// Keys the catalog's definitions and the webhook read (tests/fuzz/make_dictionary.sh lists them all).
const char* const kKeys[] = {"replicas",
                             "parallelism",
                             "completions",
                             "minReplicas",
                             "maxReplicas",
                             "numOfHosts",
                             "minAvailable",
                             "size",
                             "schedulerName",
                             "priorityClassName",
                             "resources",
                             "requests",
                             "limits",
                             "nvidia.com/gpu",
                             "cpu",
                             "memory",
                             "containers",
                             "initContainers",
                             "template",
                             "spec",
                             "metadata",
                             "labels",
                             "annotations",
                             "name",
                             "namespace",
                             "generateName",
                             "ownerReferences",
                             "controller",
                             "replicatedJobs",
                             "workerGroupSpecs",
                             "headGroupSpec",
                             "pytorchReplicaSpecs",
                             "Master",
                             "Worker",
                             "mpiReplicaSpecs",
                             "Launcher",
                             "leaderWorkerTemplate",
                             "workerTemplate",
                             "leaderTemplate",
                             "components",
                             "suspend",
                             "startupPolicy",
                             "dependsOn",
                             "operation",
                             "object",
                             "oldObject",
                             "uid",
                             "kind",
                             "apiVersion",
                             "request",
                             "restartPolicy",
                             "overhead",
                             "enableInTreeAutoscaling",
                             "autoscaling.knative.dev/min-scale",
                             "kai.scheduler/batch-min-member",
                             "elasticPolicy",
                             "schedulingPolicy",
                             "runPolicy",
                             "cliques",
                             "podCliqueScalingGroups",
                             "mode",
                             "predictor",
                             "workerSpec",
                             "services",
                             "nodeCount"};

jv interesting_value(std::mt19937& random) {
  switch (random() % 22) {
    case 0:
      return jv_number(0);
    case 1:
      return jv_number(-1);
    case 2:
      return jv_number(1);
    case 3:
      return jv_number(2);
    case 4:
      return jv_number(3);
    case 5:
      return jv_number(1e9);
    case 6:
      return jv_number(2147483648.0);
    case 7:
      return jv_number(-0.5);
    case 8:
      return jv_number(1e308);
    case 9:
      return jv_null();
    case 10:
      return jv_true();
    case 11:
      return jv_false();
    case 12:
      return jv_string("1");
    case 13:
      return jv_string("500m");
    case 14:
      return jv_string("4Gi");
    case 15:
      return jv_string("");
    case 16:
      return jv_string("Always");
    case 17:
      return jv_string("InOrder");
    case 18:
      return jv_string("UPDATE");
    case 19:
      return jv_array();
    case 20:
      return jv_object();
    default:
      return jv_string(kKeys[random() % (sizeof kKeys / sizeof *kKeys)]);
  }
}

// Every path in `value` (borrowed), each a jv array the caller frees, up to a bound.
void collect_paths(jv value, jv path, std::vector<jv>& out) {
  if (out.size() >= 4096) {
    jv_free(path);
    return;
  }
  out.push_back(jv_copy(path));
  if (jv_get_kind(value) == JV_KIND_OBJECT) {
    jv_object_foreach(value, key, child) {
      collect_paths(child, jv_array_append(jv_copy(path), key), out);
      jv_free(child);
    }
  } else if (jv_get_kind(value) == JV_KIND_ARRAY) {
    jv_array_foreach(value, i, child) {
      collect_paths(child, jv_array_append(jv_copy(path), jv_number(i)), out);
      jv_free(child);
    }
  }
  jv_free(path);
}

// One structured mutation of `doc` (consumed); the result, or an invalid jv when this one did not apply.
jv mutate(jv doc, std::mt19937& random) {
  std::vector<jv> paths;
  collect_paths(doc, jv_array(), paths);
  jv path = jv_copy(paths[random() % paths.size()]);
  jv other = jv_copy(paths[random() % paths.size()]);
  for (jv p : paths) jv_free(p);
  jv target = jv_getpath(jv_copy(doc), jv_copy(path));
  const jv_kind kind = jv_get_kind(target);
  switch (random() % 6) {
    case 0:  // a value the catalog's paths care about
      jv_free(target);
      jv_free(other);
      return jv_setpath(doc, path, interesting_value(random));
    case 1:  // gone
      jv_free(target);
      jv_free(other);
      if (jv_array_length(jv_copy(path)) == 0) {
        jv_free(path);
        jv_free(doc);
        return jv_invalid();
      }
      return jv_delpaths(doc, JV_ARRAY(path));
    case 2:  // a member under a key the catalog reads
      jv_free(other);
      if (kind != JV_KIND_OBJECT) {
        jv_free(target);
        jv_free(path);
        jv_free(doc);
        return jv_invalid();
      }
      target =
          jv_object_set(target, jv_string(kKeys[random() % (sizeof kKeys / sizeof *kKeys)]), interesting_value(random));
      return jv_setpath(doc, path, target);
    case 3:  // an element repeated
      jv_free(other);
      if (kind != JV_KIND_ARRAY || jv_array_length(jv_copy(target)) == 0) {
        jv_free(target);
        jv_free(path);
        jv_free(doc);
        return jv_invalid();
      }
      target = jv_array_append(target, jv_array_get(jv_copy(target), 0));
      return jv_setpath(doc, path, target);
    case 4: {  // one node copied over another
      jv_free(target);
      jv source = jv_getpath(jv_copy(doc), other);
      return jv_setpath(doc, path, source);
    }
    default:  // a number scaled, a string swapped for a key
      jv_free(other);
      if (kind == JV_KIND_NUMBER) {
        const double n = jv_number_value(target);
        jv_free(target);
        return jv_setpath(doc, path, jv_number(n * static_cast<double>(static_cast<int>(random() % 7) - 2)));
      }
      jv_free(target);
      return jv_setpath(doc, path, jv_string(kKeys[random() % (sizeof kKeys / sizeof *kKeys)]));
  }
}

}  // namespace

std::optional<std::string> mutate_json(std::string_view text, std::mt19937& random) {
  // jq 1.6's parser leaks the pending key or string when the text breaks off or goes wrong, and a fuzzer's inputs
  // mostly do: only text simdjson reads as JSON reaches it.
  static thread_local simdjson::dom::parser validator;
  if (validator.parse(text.data(), text.size()).error() != simdjson::SUCCESS) return std::nullopt;
  jv doc = jv_parse_sized(text.data(), static_cast<int>(text.size()));
  if (!jv_is_valid(doc)) {
    jv_free(doc);
    return std::nullopt;
  }
  jv mutated = mutate(doc, random);
  if (!jv_is_valid(mutated)) {
    jv_free(mutated);
    return std::nullopt;
  }
  jv dumped = jv_dump_string(mutated, 0);
  std::string out = jv_string_value(dumped);
  jv_free(dumped);
  return out;
}

}  // namespace wm::fuzz
