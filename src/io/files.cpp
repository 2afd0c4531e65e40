#include "kflow/io/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "kflow/model/error.hpp"

namespace kflow::io {

void write_atomic(const std::string& path, const std::function<void(std::ostream&)>& write,
                  bool binary) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, binary ? std::ios::binary | std::ios::out : std::ios::out);
    if (!out) throw Error("cannot create " + tmp + ": " + std::strerror(errno));
    write(out);
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error("writing " + tmp + " failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + path + ": " + why);
  }
}

void write_text_atomic(const std::string& path, const std::string& text) {
  write_atomic(path, [&](std::ostream& o) { o << text; });
}

DirectoryLock::DirectoryLock(const std::string& dir, bool wait) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + dir + ": " + std::strerror(errno));
  int rc;
  do rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int e = errno;
    ::close(fd);
    if (e != EWOULDBLOCK) throw Error("cannot lock " + dir + ": " + std::strerror(e));
    return;
  }
  fd_ = fd;
}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace kflow::io
