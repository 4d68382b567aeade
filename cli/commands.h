// The workload-map subcommands, on CLI11. Each add_* registers its subcommand, options and help on `app`;
// when the subcommand runs, its exit code lands in `status`. Exit codes (also in docs/cli.md):
//   0  done (unknown kinds are reported, not failures)
//   1  the input or a definition is invalid, or a check failed
//   2  usage error
#pragma once

#include <CLI/CLI.hpp>

namespace wm::cli {

void add_inspect(CLI::App& app, int& status);
void add_mutate(CLI::App& app, int& status);
void add_lint(CLI::App& app, int& status);
void add_serve(CLI::App& app, int& status);
void add_review(CLI::App& app, int& status);
void add_review_request(CLI::App& app, int& status);
void add_get(CLI::App& app, int& status);
void add_describe(CLI::App& app, int& status);

constexpr int kOk = 0;
constexpr int kInvalid = 1;
constexpr int kUsage = 2;

}  // namespace wm::cli
