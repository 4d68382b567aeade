// The definitions/ catalog, compiled into the binary by cmake/embed_definitions.cmake.
#pragma once

#include <span>
#include <string_view>

namespace wm::catalog {

struct EmbeddedFile {
  std::string_view name;  // e.g. definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_definition_files();

}  // namespace wm::catalog
