#pragma once
// A numeric table read from a CSV file (an inflow profile, say): a header
// line of column names, then rows of finite numbers, each as long as the
// header.  Blank lines and lines starting with '#' are skipped.  The file
// is checked as every input file is (input_file.hpp) before it is opened.

#include <string>
#include <vector>

namespace kflow {

struct Table {
  std::string path;
  std::vector<std::string> names;         // the header's column names
  std::vector<std::vector<double>> rows;  // rows[r][c]

  // The column's index, or -1.
  int column(const std::string& name) const;
};

// Reads `path` as `what` ("the inflow table"); a problem (unreadable file,
// no header, a repeated or empty name, a row of another length, a value that
// is not a finite number, fewer than `min_rows` rows) throws kflow::Error
// naming the file, its line and column.
Table read_table(const std::string& path, const std::string& what, std::size_t min_rows = 1);

}  // namespace kflow
