#include "mapper/view/quantity.h"

#include <catch2/catch.hpp>

using wm::view::Quantity;

static long long milli(const char* text) {
  auto q = Quantity::parse(text);
  REQUIRE(q.has_value());
  return static_cast<long long>(q->milli());
}

TEST_CASE("quantities parse with Kubernetes suffixes") {
  CHECK(milli("500m") == 500);
  CHECK(milli("1") == 1000);
  CHECK(milli("1.5") == 1500);
  CHECK(milli("4Gi") == 4LL * 1024 * 1024 * 1024 * 1000);
  CHECK(milli("128Mi") == 128LL * 1024 * 1024 * 1000);
  CHECK(milli("1e3") == 1000 * 1000);
  CHECK(milli("1E3") == 1000 * 1000);
  CHECK(milli("2k") == 2000 * 1000);
  CHECK(milli("1M") == 1000LL * 1000 * 1000);
  CHECK(milli("0.5Gi") == 512LL * 1024 * 1024 * 1000);
  CHECK(milli("+3") == 3000);
  CHECK(milli(".5") == 500);
}

TEST_CASE("fractions below a thousandth round up, like MilliValue") {
  CHECK(milli("1n") == 1);
  CHECK(milli("100u") == 1);
  CHECK(milli("1001u") == 2);
  CHECK(milli("0") == 0);
}

TEST_CASE("malformed quantities are refused") {
  for (const char* bad : {"", "abc", "1x", "Gi", "1.2.3", "1Gii", "1e", "--1", "1 Gi"})
    CHECK_FALSE(Quantity::parse(bad).has_value());
}

// fuzz_admission's structured mutator found 1e+308 (a JSON number in a container's resources) overflowing while the
// power of ten was computed (tests/fuzz/regressions/admission/quantity-1e308.json).
TEST_CASE("quantities too large to count are refused, never overflowed") {
  for (const char* huge : {"1e+308", "1e308", "1e39", "9999999999999999999999999999e20"})
    CHECK_FALSE(Quantity::parse(huge).has_value());
  CHECK(milli("1e15") == 1000LL * 1000 * 1000 * 1000 * 1000 * 1000);
}

TEST_CASE("quantities print canonically") {
  CHECK(Quantity::parse("4Gi")->str(true) == "4Gi");
  CHECK(Quantity::parse("4Gi")->str(false) == "4294967296");
  CHECK(Quantity::parse("1536Mi")->str(true) == "1536Mi");
  CHECK(Quantity::parse("250m")->str() == "250m");
  CHECK(Quantity::parse("2")->str() == "2");
  CHECK(Quantity::parse("1500m")->units_ceil() == 2);
}

using wm::view::ResourceList;

TEST_CASE("resource lists stay sorted by name, add entries on demand and keep the first emplaced") {
  ResourceList list;
  list["nvidia.com/gpu"] += *Quantity::parse("4");
  list["cpu"] += *Quantity::parse("500m");
  list["memory"] = *Quantity::parse("1Gi");
  list["cpu"] += *Quantity::parse("500m");
  list.emplace("cpu", *Quantity::parse("9"));  // already there: kept
  list.emplace("ephemeral-storage", *Quantity::parse("1Gi"));
  std::vector<std::string> names;
  for (const auto& [name, q] : list) names.push_back(name);
  CHECK(names == std::vector<std::string>{"cpu", "ephemeral-storage", "memory", "nvidia.com/gpu"});
  CHECK(list.at("cpu").str() == "1");
  CHECK(list.count("memory") == 1);
  CHECK(list.find("amd.com/gpu") == list.end());
  CHECK_THROWS_AS(list.at("amd.com/gpu"), std::out_of_range);
  const ResourceList one{{"cpu", *Quantity::parse("1")}}, thousand_milli{{"cpu", *Quantity::parse("1000m")}};
  CHECK(one == thousand_milli);
}

TEST_CASE("totals saturate instead of overflowing") {
  const auto parsed = Quantity::parse("99999999999999999999999999");  // 1e26: 1e29 thousandths
  REQUIRE(parsed);
  const Quantity huge = *parsed;
  Quantity total = huge * 1000000000000LL;  // past the 1.7e38 an __int128 holds
  CHECK(total > huge);
  total += huge * 1000000000000LL;
  CHECK(total > huge);
  CHECK((huge * -1000000000000LL) < Quantity());
}
