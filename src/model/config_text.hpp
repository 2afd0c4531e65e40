#pragma once
// Internal to kflow_config (config.cpp, config_section.cpp): how a case's
// values are written back in messages.

#include <toml++/toml.hpp>

#include <string>
#include <vector>

namespace kflow::detail {

// A value as the user wrote it: strings quoted (newlines as \n), short
// arrays element by element, long ones and tables by what they are.
std::string describe(const toml::node& n);
// "a, b, c"
std::string join_list(const std::vector<std::string>& v);

}  // namespace kflow::detail
