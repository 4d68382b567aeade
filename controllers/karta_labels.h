// The labels KAI Scheduler's podgrouper finds a Karta by. For a workload kind it has no grouper of its own for, it
// lists run.ai/v1alpha1 Karta objects by run.ai/karta-group, run.ai/karta-version and run.ai/karta-kind, and uses the
// one whose root component is that kind (kai-scheduler pkg/podgrouper/podgrouper/plugins/karta: hub.go
// getKartaPerGvkLabelSelectors, grouper.go KartaGroupLabel). Upstream Workload Map documents applying a Karta without
// them, so a Karta applied that way is one KAI never reads: the cluster side sets them from the root kind.
// Pure: what to write, decided from the object alone.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>

namespace wm::controllers {

inline constexpr const char* kKartaGroupLabel = "run.ai/karta-group";
inline constexpr const char* kKartaVersionLabel = "run.ai/karta-version";
inline constexpr const char* kKartaKindLabel = "run.ai/karta-kind";

// The server-side apply body that gives `karta` the lookup labels of its root component's kind; nothing when its
// labels already say that kind, or it names no root kind (KAI skips such a Karta whatever its labels).
std::optional<std::string> karta_lookup_labels_patch(simdjson::dom::element karta);

}  // namespace wm::controllers
