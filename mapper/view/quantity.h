// Kubernetes resource quantities ("500m", "4Gi", "1e3", "1.5"), held exactly in thousandths.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wm::view {

class Quantity {
 public:
  Quantity() = default;
  // Refuses what the API server refuses; fractions below a thousandth round up, as MilliValue() does.
  static std::optional<Quantity> parse(std::string_view text);
  // A whole number of units, exactly (a JSON integer: `nvidia.com/gpu: 8`).
  static Quantity units(long long n) { return Quantity(static_cast<__int128>(n) * 1000); }

  __int128 milli() const { return milli_; }
  // Whole units, rounded up (GPU counts, pod counts).
  long long units_ceil() const;

  // Canonical text: "4", "500m", and for byte-like resources "4Gi" when it divides evenly.
  std::string str(bool binary_suffixes = false) const;

  // Saturating: totals of absurd requests (1e30 of a resource in each of a million pods) stay ordered, not UB.
  Quantity& operator+=(const Quantity& o) {
    if (__builtin_add_overflow(milli_, o.milli_, &milli_)) milli_ = o.milli_ < 0 ? kMin : kMax;
    return *this;
  }
  Quantity operator*(long long n) const {
    __int128 out;
    if (__builtin_mul_overflow(milli_, static_cast<__int128>(n), &out)) out = (milli_ < 0) != (n < 0) ? kMin : kMax;
    return Quantity(out);
  }
  friend Quantity max(const Quantity& a, const Quantity& b) { return a.milli_ >= b.milli_ ? a : b; }
  auto operator<=>(const Quantity&) const = default;

 private:
  explicit Quantity(__int128 milli) : milli_(milli) {}
  static constexpr __int128 kMax = ~(static_cast<unsigned __int128>(1) << 127);
  static constexpr __int128 kMin = -kMax - 1;
  __int128 milli_ = 0;
};

// Resource name -> quantity, ordered by name. A pod asks for a handful of resources, so they are
// kept in one sorted vector (one allocation) rather than a tree of nodes.
class ResourceList {
 public:
  using value_type = std::pair<std::string, Quantity>;
  using const_iterator = std::vector<value_type>::const_iterator;

  ResourceList() = default;
  ResourceList(std::initializer_list<value_type> entries);

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const_iterator find(std::string_view name) const;
  size_t count(std::string_view name) const { return find(name) != end(); }
  const Quantity& at(std::string_view name) const;  // throws std::out_of_range when absent
  Quantity& operator[](std::string_view name);      // adds a zero quantity when absent
  void insert_or_assign(std::string_view name, const Quantity& q) { (*this)[name] = q; }
  void emplace(std::string_view name, const Quantity& q);  // keeps an existing entry, as std::map does
  bool operator==(const ResourceList&) const = default;

 private:
  std::vector<value_type>::iterator lower_bound(std::string_view name);
  std::vector<value_type> entries_;
};

void add_into(ResourceList& into, const ResourceList& more);
ResourceList scaled(const ResourceList& list, long long factor);
// Memory-like resources print with binary suffixes.
bool is_byte_resource(std::string_view name);

}  // namespace wm::view
