#pragma once
// Text from a user (a case name, a benchmark name, a value in a file) as a
// terminal shows it safely: a newline, a tab, an escape code or any other
// control character cannot start a line of its own or recolour the terminal.

#include <cstdio>
#include <string>

namespace kflow {

// `text` with control characters written as \n, \r, \t or \xNN (ESC is
// \x1b, DEL \x7f); everything else, UTF-8 included, as it is.  Longer than
// `most` characters (0: no limit): cut there, with "..." after it.
inline std::string printable(const std::string& text, std::size_t most = 0) {
  std::string r;
  const std::string t = most && text.size() > most ? text.substr(0, most) : text;
  for (char c : t) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      r += "\\n";
    else if (c == '\r')
      r += "\\r";
    else if (c == '\t')
      r += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", u);
      r += b;
    } else {
      r += c;
    }
  }
  return r + (t.size() < text.size() ? "..." : "");
}

// A message of several lines (kflow's errors give one problem a line):
// printable() line by line, its newlines kept.  The command line prints
// every error through it, so no value in a message can send escape codes.
inline std::string printable_lines(const std::string& text) {
  std::string r;
  std::size_t from = 0;
  for (auto nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    r += printable(text.substr(from, nl - from)) + "\n";
    from = nl + 1;
  }
  return r + printable(text.substr(from));
}

}  // namespace kflow
