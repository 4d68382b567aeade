// The AdmissionReview the API server would send for the first object of a manifest (review-request, review).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "mapper/catalog/catalog.h"

namespace wm::cli {

struct ReviewRequestOptions {
  std::string file, operation = "CREATE", namespace_name, uid = "0d9f5d4e-7c59-4c1e-9a4b-1f2e3d4c5b6a";
};

// FILE, --operation, --namespace and --uid on `command`.
void add_request_options(CLI::App& command, ReviewRequestOptions& o);
// The first object of o.file, as JSON (with `workloads`, the first of a kind it reads, else the first); problems go
// to stderr and give nothing.
std::optional<std::string> first_object_json(const std::string& file, const catalog::Catalog* workloads = nullptr);
// The review of `object_json` as JSON; problems go to stderr and give nothing.
std::optional<std::string> admission_review_json(const ReviewRequestOptions& o, const std::string& object_json);

}  // namespace wm::cli
