// workload-map: inspect workloads, produce their JSON Patches, lint definitions, serve the webhook.
#include <iostream>
#include <string>

#include "cli/commands.h"

namespace {

const char* const kUsage = R"(usage: workload-map COMMAND [options]

commands:
  inspect FILE...      show each workload's components, pod templates, replicas, pods and requests
                       (-o json for machines; --status to map status to phases)
  mutate FILE          print the JSON Patch that edits every pod template
                       --set-scheduler NAME  --priority-class NAME
                       --label k=v  --annotation k=v        (pod templates; repeatable)
                       --root-label k=v  --root-annotation k=v  (the workload object itself)
                       -o patch (default) | json | yaml     (the patched object)
  lint DIR|FILE...     check definitions; lists every problem as file:line: field: message
  serve                run the admission webhook (workload-map serve --help)
  review-request FILE  print an AdmissionReview for the first workload of FILE (for curl and tests)
                       --operation CREATE|UPDATE|DELETE  --namespace NS  --uid UID

common options:
  --definitions DIR    add or override definitions (repeatable); the built-in catalog is always loaded

exit codes: 0 done (unknown kinds are reported, not failures), 1 invalid input or definitions, 2 usage
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return wm::cli::kUsage;
  }
  std::string command = argv[1];
  wm::cli::Args args(argv + 2, argv + argc);
  if (command == "inspect") return wm::cli::inspect(args);
  if (command == "mutate") return wm::cli::mutate(args);
  if (command == "lint") return wm::cli::lint(args);
  if (command == "serve") return wm::cli::serve(args);
  if (command == "review-request") return wm::cli::review_request(args);
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kUsage;
    return wm::cli::kOk;
  }
  std::cerr << "unknown command " << command << "\n" << kUsage;
  return wm::cli::kUsage;
}
