#pragma once
// Safe file writing: every file is written under a temporary name in the
// same directory and renamed into place, so a crash or a failing run never
// leaves a half-written file where a complete one was.

#include <functional>
#include <iosfwd>
#include <string>

namespace kflow::io {

// Calls write(stream) on a temporary file next to `path`, then renames it to
// `path`.  Throws kflow::Error on any failure (the temporary is removed).
void write_atomic(const std::string& path, const std::function<void(std::ostream&)>& write,
                  bool binary = false);
void write_text_atomic(const std::string& path, const std::string& text);

}  // namespace kflow::io
