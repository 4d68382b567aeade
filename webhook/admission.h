// Kubernetes admission.k8s.io/v1 AdmissionReview in, AdmissionReview (or an HTTP 400) out. Pure:
// no sockets, no clocks; everything about workload types comes from the catalog and the policy.
#pragma once

#include <simdjson.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mapper/catalog/catalog.h"
#include "mapper/view/references.h"
#include "policy/admission_state.h"
#include "policy/keys.h"
#include "policy/policy.h"

namespace wm::webhook {

enum class Endpoint { Mutate, Validate };

// What admission decided. outcome_name() is how metrics and logs name it.
enum class Outcome {
  Patched,        // edited
  Unchanged,      // understood, nothing to edit
  Allowed,        // validated, no violation
  Denied,         // validated, a policy limit refused it
  UnknownKind,    // no definition for its kind
  NoRule,         // no policy rule for its namespace and kind
  Skipped,        // an operation admission leaves alone (DELETE, CONNECT, an UPDATE without mutateOnUpdate)
  Controlled,     // its controller is a kind the catalog knows, which was admitted instead
  ReplicaGang,    // a pod of a gang repeated per replica, given its replica's gang name
  PodGroupNamed,  // a pod whose workload named its PodGroup, given it in spec.schedulingGroup
  NotUnderstood,  // the mapper cannot read it; failure policy Ignore let it through
  FailedClosed,   // the mapper cannot read it; failure policy Fail refused it
  BadRequest,     // not an AdmissionReview (HTTP 400)
  Failed,         // the review threw: answered under the rule's failure policy, logged with the UID, counted
};
std::string_view outcome_name(Outcome outcome);

struct AdmissionResult {
  int http_status = 200;  // 400 for a malformed review
  std::string body;       // the AdmissionReview, or the reason for a 400
  std::string kind;       // the object's kind, for metrics ("" when unknown)
  std::string operation;  // CREATE, UPDATE, DELETE or CONNECT, for metrics ("" when unknown)
  Outcome outcome = Outcome::Allowed;
  std::string message;  // why, for logs (denials, failures)
  std::string uid;      // the request's UID, for the log of a failed review
};

// `parser` is the calling thread's own. Never throws: a review that throws is answered by failed_review().
AdmissionResult review(Endpoint endpoint, std::string_view body, const policy::AdmissionState& state,
                       simdjson::dom::parser& parser);

// Runs `review`; when it throws, the answer under the failure policy of the rule `body`'s object matches (allowed with
// a warning under Ignore, refused under Fail, allowed when no rule matches), outcome Failed; HTTP 500 when even that
// fails.
AdmissionResult guarded(std::string_view body, const policy::AdmissionState& state, simdjson::dom::parser& parser,
                        const std::function<AdmissionResult()>& review) noexcept;

}  // namespace wm::webhook
