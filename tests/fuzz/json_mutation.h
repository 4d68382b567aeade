// One structure-aware mutation of a JSON document, for fuzz_admission's custom mutator and for the hostile-input
// benchmark: libjq's jv parses the input, one node changes (a value set to one the catalog's paths care about, a
// member added under a key the catalog reads, a node deleted, an array element repeated, one node copied over
// another) and the result is printed back.
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace wm::fuzz {

// The mutated text; nullopt when `text` is not JSON or the mutation drawn does not apply to it.
std::optional<std::string> mutate_json(std::string_view text, std::mt19937& random);

}  // namespace wm::fuzz
