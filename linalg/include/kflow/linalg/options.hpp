#pragma once
// One name/parse pair for every option enum of linalg.  An enum opts in by
// specialising EnumNames with its user-facing noun and its (value, name)
// table; name() and parse<E>() then serve case files, benches and messages.
//
//   template <> struct EnumNames<SipOrdering> {
//     static constexpr const char* what = "SIP ordering";
//     static constexpr std::pair<SipOrdering, const char*> table[] = {...};
//   };

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kflow::linalg {

template <class E>
struct EnumNames;

template <class E, class = decltype(EnumNames<E>::table)>
const char* name(E e) {
  for (const auto& [v, n] : EnumNames<E>::table)
    if (v == e) return n;
  return "?";
}

// The names of E, separated by `sep` (for messages and help texts).
template <class E>
std::string enum_names(const char* sep = ", ") {
  std::string s;
  for (const auto& [v, n] : EnumNames<E>::table) s += (s.empty() ? "" : sep) + std::string(n);
  return s;
}

// The value named `s`; throws std::invalid_argument naming the accepted values.
template <class E>
E parse(std::string_view s) {
  for (const auto& [v, n] : EnumNames<E>::table)
    if (s == n) return v;
  throw std::invalid_argument(std::string(EnumNames<E>::what) + " \"" + std::string(s) +
                              "\" is not one of " + enum_names<E>());
}

}  // namespace kflow::linalg
