// workload-map: inspect workloads, produce their JSON Patches, lint definitions, review offline, serve the webhook.
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/version.h"

int main(int argc, char** argv) {
  CLI::App app{"workload-map: the structure of distributed AI workloads, from YAML definitions, for schedulers"};
  app.name("workload-map");
  app.set_version_flag("--version",
                       std::string("workload-map ") + wm::cli::version() + " (" + wm::cli::revision() + ")");
  app.require_subcommand(1);
  app.footer(
      "Every command has its own --help.\n"
      "Exit codes: 0 done (unknown kinds are reported, not failures), 1 invalid input or definitions, 2 usage.");
  int status = wm::cli::kOk;
  wm::cli::add_inspect(app, status);
  wm::cli::add_mutate(app, status);
  wm::cli::add_lint(app, status);
  wm::cli::add_review(app, status);
  wm::cli::add_serve(app, status);
  wm::cli::add_review_request(app, status);
  wm::cli::add_get(app, status);
  wm::cli::add_describe(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and exit 0; everything else is a usage error, named, with the way to help.
    return app.exit(e) == 0 ? wm::cli::kOk : wm::cli::kUsage;
  }
  return status;
}
