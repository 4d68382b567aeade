// The workload-map subcommands. Exit codes (also in the README):
//   0  done (unknown kinds are reported, not failures)
//   1  the input or a definition is invalid, or a check failed
//   2  usage error
#pragma once

#include <string>
#include <vector>

namespace wm::cli {

using Args = std::vector<std::string>;

int inspect(const Args& args);
int mutate(const Args& args);
int lint(const Args& args);
int serve(const Args& args);
int review_request(const Args& args);

constexpr int kOk = 0;
constexpr int kInvalid = 1;
constexpr int kUsage = 2;

}  // namespace wm::cli
