#include "kflow/model/table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"

namespace kflow {

int Table::column(const std::string& name) const {
  for (std::size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return int(c);
  return -1;
}

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") + 1 - b);
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const auto comma = line.find(',', from);
    out.push_back(trim(line.substr(from, comma == std::string::npos ? comma : comma - from)));
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

}  // namespace

Table read_table(const std::string& path, const std::string& what, std::size_t min_rows) {
  if (const auto problem = input_file_problem(path, what, max_case_file_bytes); !problem.empty())
    throw Error(problem + "; expected a CSV file (a header of column names, then rows of numbers)");
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read " + what);
  Table t;
  t.path = path;
  std::string line;
  long number = 0;
  auto fail = [&](const std::string& why) {
    throw Error(path + ":" + std::to_string(number) + ": " + what + ": " + why);
  };
  while (std::getline(in, line)) {
    ++number;
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 BOM
    const auto text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    auto row = cells(text);
    if (t.names.empty()) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c].empty()) fail("column " + std::to_string(c + 1) + " of the header has no name");
        for (std::size_t e = 0; e < c; ++e)
          if (row[e] == row[c]) fail("the header names column '" + row[c] + "' twice");
        char* end = nullptr;
        std::strtod(row[c].c_str(), &end);
        if (end && *end == '\0')
          fail("the first line must be a header of column names, got the number '" + row[c] + "'");
      }
      t.names = row;
      continue;
    }
    if (row.size() != t.names.size())
      fail("a row of " + std::to_string(row.size()) + " values where the header has " +
           std::to_string(t.names.size()) + " columns");
    std::vector<double> v(row.size());
    for (std::size_t c = 0; c < row.size(); ++c) {
      char* end = nullptr;
      errno = 0;
      v[c] = std::strtod(row[c].c_str(), &end);
      if (row[c].empty() || !end || *end != '\0' || errno == ERANGE || !std::isfinite(v[c]))
        fail("column '" + t.names[c] + "': '" + row[c] + "' is not a finite number");
    }
    t.rows.push_back(std::move(v));
  }
  if (in.bad()) throw Error(path + ": cannot read " + what + ": a read error");
  if (t.names.empty()) throw Error(path + ": " + what + " is empty; expected a header line");
  if (t.rows.size() < min_rows)
    throw Error(path + ": " + what + " has " + std::to_string(t.rows.size()) + " rows; at least " +
                std::to_string(min_rows) + " are needed");
  return t;
}

}  // namespace kflow
