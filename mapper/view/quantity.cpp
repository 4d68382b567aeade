#include "mapper/view/quantity.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace wm::view {

namespace {

bool mul(__int128& v, __int128 by) { return !__builtin_mul_overflow(v, by, &v); }

// 10^exp, or false when it does not fit (a quantity like 1e308 is refused, never overflowed).
bool pow10(int exp, __int128& out) {
  out = 1;
  while (exp-- > 0)
    if (!mul(out, 10)) return false;
  return true;
}

std::string int128_str(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  if (negative) v = -v;
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return negative ? "-" + s : s;
}

// What a quantity's suffix multiplies by: 2^binary_power * 10^decimal_exponent. Nothing for an unknown suffix.
struct Multiplier {
  int binary_power = 0;
  int decimal_exponent = 0;
};

std::optional<Multiplier> suffix_multiplier(std::string_view suffix) {
  static const std::pair<std::string_view, int> binary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                            {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  static const std::pair<std::string_view, int> decimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
                                                             {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  for (auto [s, p] : binary)
    if (suffix == s) return Multiplier{p, 0};
  for (auto [s, e] : decimal)
    if (suffix == s) return Multiplier{0, e};
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  size_t j = 1;
  bool exp_negative = false;
  if (suffix[j] == '+' || suffix[j] == '-') exp_negative = suffix[j++] == '-';
  if (j >= suffix.size()) return std::nullopt;
  int exp = 0;
  for (; j < suffix.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(suffix[j])) || exp > 100) return std::nullopt;
    exp = exp * 10 + (suffix[j] - '0');
  }
  return Multiplier{0, exp_negative ? -exp : exp};
}

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  __int128 digits = 0;
  int fraction_digits = 0, digit_count = 0;
  bool dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (++digit_count > 30) return std::nullopt;
    digits = digits * 10 + (c - '0');
    if (dot) ++fraction_digits;
  }
  if (digit_count == 0) return std::nullopt;
  std::string_view suffix = text.substr(i);
  auto multiplier = suffix_multiplier(suffix);
  if (!multiplier) return std::nullopt;
  const auto [binary_power, decimal_exponent] = *multiplier;

  // milli = ceil(digits * 1000 * multiplier / 10^fraction_digits)
  __int128 numerator = digits, denominator = 1;
  if (!mul(numerator, 1000)) return std::nullopt;
  if (binary_power && !mul(numerator, static_cast<__int128>(1) << binary_power)) return std::nullopt;
  int exponent = decimal_exponent - fraction_digits;
  if (exponent > 0) {
    __int128 scale = 1;
    if (!pow10(exponent, scale) || !mul(numerator, scale)) return std::nullopt;
  }
  if (exponent < 0) {
    if (-exponent > 30) return Quantity(numerator == 0 ? 0 : (negative ? 0 : 1));
    pow10(-exponent, denominator);  // at most 10^30: fits
  }
  __int128 milli = numerator / denominator + (numerator % denominator != 0 ? 1 : 0);
  return Quantity(negative ? -milli : milli);
}

long long Quantity::units_ceil() const {
  __int128 units = milli_ / 1000 + (milli_ % 1000 > 0 ? 1 : 0);
  return static_cast<long long>(units);
}

std::string Quantity::str(bool binary_suffixes) const {
  if (milli_ % 1000 != 0) return int128_str(milli_) + "m";
  __int128 units = milli_ / 1000;
  if (binary_suffixes && units != 0) {
    static const char* const names[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int k = 0; k < 6; ++k) {
      __int128 unit = static_cast<__int128>(1) << (10 * (6 - k));
      if (units % unit == 0) return int128_str(units / unit) + names[k];
    }
  }
  return int128_str(units);
}

ResourceList::ResourceList(std::initializer_list<value_type> entries) {
  for (const auto& [name, q] : entries) emplace(name, q);
}

std::vector<ResourceList::value_type>::iterator ResourceList::lower_bound(std::string_view name) {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const value_type& e, std::string_view n) { return e.first < n; });
}

ResourceList::const_iterator ResourceList::find(std::string_view name) const {
  auto it = const_cast<ResourceList*>(this)->lower_bound(name);
  return it != entries_.end() && it->first == name ? const_iterator(it) : end();
}

const Quantity& ResourceList::at(std::string_view name) const {
  auto it = find(name);
  if (it == end()) throw std::out_of_range("no resource " + std::string(name));
  return it->second;
}

Quantity& ResourceList::operator[](std::string_view name) {
  if (entries_.empty()) entries_.reserve(4);  // before lower_bound: it would move the entries
  auto it = lower_bound(name);
  if (it == entries_.end() || it->first != name) it = entries_.emplace(it, std::string(name), Quantity());
  return it->second;
}

void ResourceList::emplace(std::string_view name, const Quantity& q) {
  auto it = lower_bound(name);
  if (it == entries_.end() || it->first != name) entries_.emplace(it, std::string(name), q);
}

void add_into(ResourceList& into, const ResourceList& more) {
  for (const auto& [name, q] : more) into[name] += q;
}

ResourceList scaled(const ResourceList& list, long long factor) {
  ResourceList out;
  for (const auto& [name, q] : list) out.emplace(name, q * factor);
  return out;
}

bool is_byte_resource(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name.substr(0, 10) == "hugepages-" ||
         name.find("/memory") != std::string_view::npos;
}

}  // namespace wm::view
