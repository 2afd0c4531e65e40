#pragma once
// A model's output fields, written once: a table of {id, name, components}
// in output order.  The model's parse lists the names (ModelSetup::fields,
// field_names) and its field() finds the one asked for (find_field) and
// switches on its id.  An entry marked conditional is offered only where the
// model's one condition holds (e.g. an exact solution exists; a 3-D grid).

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace kflow {

template <class Id>
struct FieldEntry {
  Id id;
  const char* name;
  int components = 1;        // 1, or 3 for a vector (HostField::components)
  bool conditional = false;  // offered only where the model's condition holds
};

// The names the model offers, in table order: every entry, those marked
// conditional only where `condition` holds.
template <class Id, std::size_t N>
std::vector<std::string> field_names(const std::array<FieldEntry<Id>, N>& table,
                                     bool condition = false) {
  std::vector<std::string> names;
  for (const auto& e : table)
    if (!e.conditional || condition) names.emplace_back(e.name);
  return names;
}

// The entry named `name`, or nullptr if the table has none.
template <class Id, std::size_t N>
const FieldEntry<Id>* find_field(const std::array<FieldEntry<Id>, N>& table,
                                 const std::string& name) {
  for (const auto& e : table)
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace kflow
