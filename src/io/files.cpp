#include "kflow/io/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "kflow/core/error.hpp"

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

}  // namespace kflow::io
