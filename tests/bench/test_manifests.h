// The objects of the tests' upstream manifests (every kind the catalog has), for the benchmarks that send them.
#pragma once

#include <string>
#include <vector>

namespace wm::bench {

// Every document of ../shared/corpus/upstream, tests/fixtures/upstream and tests/fixtures/upstream-recorded, as JSON.
std::vector<std::string> test_manifest_objects();

}  // namespace wm::bench
