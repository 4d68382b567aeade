// The labels a Karta is looked up by, in the two schemes that read them, each the root component's group ("" for the
// core group, present), version and kind as written:
// - KAI Scheduler's podgrouper, for a workload kind it has no grouper of its own for, lists Kartas by
//   run.ai/karta-group, -version and -kind, and uses the one whose root component is that kind (kai-scheduler
//   pkg/podgrouper/podgrouper/plugins/karta: hub.go getKartaPerGvkLabelSelectors, grouper.go KartaGroupLabel, at
//   d5bc503a);
// - upstream Workload Map's operator stamps karta.run.ai/group, /version and /kind (karta pkg/api/runai/v1alpha1
//   labels.go LabelRootGroup; operator/pkg/controller.go ensureLabels), finds the Kartas of a CRD by group and kind
//   (operator/pkg/eventfilter.go MapCRDToKartaEvent), and its validating webhook refuses an update that lacks them.
// Neither reads the other's. Upstream documents applying a Karta without labels, so a Karta applied that way is one
// KAI never reads: the cluster side sets both schemes from the root kind. Pure: what to write, decided from the object.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>

namespace wm::controllers {

// One consumer's keys for a Karta's root group, version and kind.
struct KartaLookupScheme {
  const char* consumer;
  const char* group;
  const char* version;
  const char* kind;
};
inline constexpr KartaLookupScheme kKaiKartaLabels{"KAI Scheduler's podgrouper", "run.ai/karta-group",
                                                   "run.ai/karta-version", "run.ai/karta-kind"};
inline constexpr KartaLookupScheme kWorkloadMapKartaLabels{"upstream Workload Map's operator", "karta.run.ai/group",
                                                           "karta.run.ai/version", "karta.run.ai/kind"};
inline constexpr KartaLookupScheme kKartaLookupSchemes[] = {kKaiKartaLabels, kWorkloadMapKartaLabels};

// The server-side apply body that gives `karta` both schemes' lookup labels of its root component's kind; nothing when
// its labels already say that kind in both, or it names no root kind (KAI skips such a Karta whatever its labels).
std::optional<std::string> karta_lookup_labels_patch(simdjson::dom::element karta);

}  // namespace wm::controllers
