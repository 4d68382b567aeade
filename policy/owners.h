// Who owns an object, from its ownerReferences: what admission and the PodGroup controller both need to know.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string_view>

namespace wm::policy {

// The object's controller: its ownerReference with controller: true. When the catalog knows that kind as part of a
// workload (a defined kind, or a kind a definition says its workloads make, like Knative's Revision), the object
// was made by the controller from a pod template its top-level workload's admission already edited and checked, so it
// is neither edited nor checked again: a second decision would regroup it on its own (a JobSet's Job as a gang of its
// own, a Deployment's Pod under a name made from its uid) and could refuse a part of a workload already admitted as a
// whole. An object whose controller the catalog does not know is the top-level workload as far as this webhook can see,
// and is handled as one.
struct Controller {
  std::string_view api_version, kind;
};

// One walk over the object's ownerReferences (the views point into its document): its controller, and whether a Pod
// owns it (as controller or not).
// A Pod that a Pod owns is that pod's stand-in and never a workload of its own: YuniKorn's gang placeholders are
// owned by the pod they hold a place for, not as controller (k8shim pkg/cache/metadata.go getOwnerReference), and
// must keep the app and task group the scheduler wrote on them, or the gang never forms.
struct Owners {
  std::optional<Controller> controller;
  bool pod = false;
};

Owners owners_of(simdjson::dom::element object);

}  // namespace wm::policy
