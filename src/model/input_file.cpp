#include "kflow/model/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kflow {

namespace {

const char* kind_of(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO (named pipe)"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

std::string bytes_text(std::uintmax_t n) {
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

}  // namespace

std::string input_file_problem(const std::string& path, const std::string& what,
                               std::uintmax_t max_bytes, const std::string& in_directory) {
  const std::string head = path + ": cannot read " + what + ": ";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return head + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) {
    std::string why = head + "it is " + kind_of(st.st_mode) + ", not a file";
    struct stat inner {};
    const std::string hint = path + (path.back() == '/' ? "" : "/") + in_directory;
    if (S_ISDIR(st.st_mode) && !in_directory.empty() && ::stat(hint.c_str(), &inner) == 0 &&
        S_ISREG(inner.st_mode))
      why += " (did you mean " + hint + "?)";
    return why;
  }
  if (std::uintmax_t(st.st_size) > max_bytes)
    return head + "it has " + bytes_text(std::uintmax_t(st.st_size)) + ", " + what + " at most " +
           bytes_text(max_bytes) + " (is it " + what + "?)";
  // A regular file now: opening it cannot block (no O_NONBLOCK needed), and
  // the open tells about permissions the mode bits alone do not (ACLs, root).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return head + std::strerror(errno);
  ::close(fd);
  return "";
}

}  // namespace kflow
