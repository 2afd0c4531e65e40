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

// An exclusive lock (flock) on a directory, held while the object lives: a
// run holds its staging directory's, `kflow convert` the directory it
// converts.  A lock dies with its process, so it cannot be stale.
class DirectoryLock {
 public:
  DirectoryLock() = default;
  // wait: block until the holder lets go; otherwise held() is false when
  // another process holds the lock.  Throws kflow::Error when `dir` cannot
  // be opened.
  DirectoryLock(const std::string& dir, bool wait);
  ~DirectoryLock();
  DirectoryLock(DirectoryLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DirectoryLock& operator=(DirectoryLock&& o) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace kflow::io
