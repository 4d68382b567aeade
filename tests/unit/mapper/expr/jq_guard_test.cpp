#include "mapper/expr/jq_guard.h"

#include <catch2/catch.hpp>

using wm::expr::unbounded_jq_construct;

TEST_CASE("jq that may not terminate, or reaches outside the object, is refused") {
  CHECK(unbounded_jq_construct("def f: f; f") == "def");
  CHECK(unbounded_jq_construct("[repeat(1)]") == "repeat");
  CHECK(unbounded_jq_construct("while(true; .)") == "while");
  CHECK(unbounded_jq_construct("until(false; .)") == "until");
  CHECK(unbounded_jq_construct("range(infinite)") == "range");
  CHECK(unbounded_jq_construct("recurse(. + 1)") == "recurse(f)");
  CHECK(unbounded_jq_construct("$ENV.HOME") == "$ENV");
  CHECK(unbounded_jq_construct("env.HOME") == "env");
  CHECK(unbounded_jq_construct("input") == "input");
}

TEST_CASE("ordinary definitions' jq is accepted") {
  for (const char* ok : {".spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)",
                         ". as $job | .spec.x | keys_unsorted[] | if . == \"Worker\" then $job.spec.y else null end",
                         "[.status.replicatedJobsStatus[]?] | any(.[]; (.active // 0) > 0)", ".spec.range.while",
                         "\"def while range\" | length", "[..] | length", "recurse | numbers", "paths"})
    CHECK_FALSE(unbounded_jq_construct(ok).has_value());
}
