#include "kflow/io/pvd.hpp"

#include <sys/stat.h>

#include <cerrno>

#include <fstream>
#include <map>
#include <sstream>

#include "kflow/io/fieldfile.hpp"
#include "kflow/io/files.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"

namespace kflow::io {

void write_pvd(const std::string& path, const FrameList& frames) {
  std::ostringstream s;
  s << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
    << "  <Collection>\n";
  for (const auto& [t, file] : frames)
    s << "    <DataSet timestep=\"" << exact(t) << "\" group=\"\" part=\"0\" file=\"" << file
      << "\"/>\n";
  s << "  </Collection>\n</VTKFile>\n";
  write_text_atomic(path, s.str());
}

namespace {

// The attributes of one XML element's text (between "<DataSet" and "/>").
std::map<std::string, std::string> attributes(const std::string& element) {
  std::map<std::string, std::string> a;
  std::size_t at = 0;
  while ((at = element.find('=', at)) != std::string::npos) {
    std::size_t name_end = at, name_begin = at;
    while (name_begin > 0 && element[name_begin - 1] != ' ') --name_begin;
    if (at + 1 >= element.size() || element[at + 1] != '"') break;
    const auto close = element.find('"', at + 2);
    if (close == std::string::npos) break;
    a[element.substr(name_begin, name_end - name_begin)] = element.substr(at + 2, close - at - 2);
    at = close + 1;
  }
  return a;
}

}  // namespace

FrameList read_pvd(const std::string& path) {
  FrameList frames;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return frames;  // none yet
  if (const auto problem = input_file_problem(path, "the frame list", max_mesh_file_bytes);
      !problem.empty())
    throw Error(problem + "; expected a .pvd file");
  std::ifstream in(path);
  if (!in) return frames;
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  for (std::size_t at = 0; (at = text.find("<DataSet", at)) != std::string::npos;) {
    const auto end = text.find("/>", at);
    if (end == std::string::npos) throw Error(path + ": unterminated DataSet entry");
    const auto a = attributes(text.substr(at + 8, end - at - 8));
    const auto t = a.find("timestep"), f = a.find("file");
    if (t == a.end() || f == a.end())
      throw Error(path + ": DataSet entry without timestep or file");
    try {
      frames.emplace_back(std::stod(t->second), f->second);
    } catch (const std::exception&) {
      throw Error(path + ": DataSet timestep \"" + t->second + "\" is not a number");
    }
    at = end;
  }
  return frames;
}

}  // namespace kflow::io
