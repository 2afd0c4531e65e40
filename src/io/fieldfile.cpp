#include "kflow/io/fieldfile.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kflow/io/files.hpp"
#include "kflow/io/pvd.hpp"
#include "kflow/io/run_output.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"

namespace kflow::io {

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const std::string& FieldFile::get(const std::string& key, const std::string& file) const {
  auto it = meta.find(key);
  if (it == meta.end())
    throw Error(file + ": not a valid kflow field file: no '" + key + "' entry");
  return it->second;
}

const StateArray* FieldFile::array(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t seed) {
  constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full;
  std::uint64_t h = seed ^ (n * p2);
  auto mix = [&](std::uint64_t w) {  // a bijection of h for a given w: one word changed, h changes
    h ^= w * p2;
    h = (h << 31 | h >> 33) * p1;
  };
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    std::uint64_t w;
    std::memcpy(&w, data + k, 8);
    mix(w);
  }
  std::uint64_t w = 0;
  std::memcpy(&w, data + k, n - k);
  mix(w);
  return h ^ (h >> 29);
}

namespace {

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string escape(const std::string& v) {
  std::string r;
  for (char c : v) r += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
  return r;
}

std::string unescape(const std::string& v) {
  std::string r;
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] == '\\' && k + 1 < v.size())
      r += v[++k] == 'n' ? '\n' : v[k];
    else
      r += v[k];
  return r;
}

std::size_t type_size(const std::string& type) {
  return type == "float64"                          ? 8
         : type == "float32"                        ? 4
         : type == "float16s" || type == "float16c" ? 2
                                                    : 0;
}

}  // namespace

void write_field_file(const std::string& path, const FieldFile& f) {
  std::string meta;
  for (const auto& [k, v] : f.meta) meta += k + " " + escape(v) + "\n";
  write_atomic(
      path,
      [&](std::ostream& o) {
        o << "KFLOW-FIELDS " << field_file_version << "\n"
          << meta << "meta-checksum " << hex(checksum(meta.data(), meta.size())) << "\n";
        o << "arrays " << f.arrays.size() << "\n";
        for (const auto& a : f.arrays) {
          o << "array " << a.name << " " << a.type << " " << a.extents.size();
          for (auto e : a.extents) o << " " << e;
          o << " " << a.bytes.size() << " " << hex(checksum(a.bytes.data(), a.bytes.size()))
            << "\n";
          o.write(a.bytes.data(), static_cast<std::streamsize>(a.bytes.size()));
          o << "\n";
        }
        o << "end\n";
      },
      true);
}

FieldFile read_field_file(const std::string& path, const std::string& what,
                          const std::string& in_directory) {
  // A regular file of a plausible size, or a message (a FIFO, a device or a
  // directory is never opened).
  if (const auto problem = input_file_problem(path, what, max_field_file_bytes, in_directory);
      !problem.empty())
    throw Error(problem + "; expected a kflow field file (format " +
                std::to_string(field_file_version) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read " + what + ": " + std::strerror(errno));
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  auto bad = [&](const std::string& why) -> Error {
    return Error(path + ": not a valid kflow field file (" + why + ")");
  };
  std::string line;
  if (!std::getline(in, line) || line.rfind("KFLOW-FIELDS ", 0) != 0) throw bad("wrong header");
  // Only the format this kflow writes: format 1 had no checksums and wrote
  // metadata unescaped (a case text with a backslash reads differently).
  const std::string version = line.substr(13);
  const std::string expected = std::to_string(field_file_version);
  if (version != expected)
    throw Error(path + ": field file format " +
                (version.size() <= 20 && !version.empty() &&
                         version.find_first_not_of("0123456789") == std::string::npos
                     ? version
                     : "'" + version.substr(0, 20) + "'") +
                "; this kflow reads format " + expected + " only, the one it writes" +
                (version == "1" ? " (format 1, without checksums, came from an older kflow: run "
                                  "the case again from its start with this kflow)"
                                : ""));
  FieldFile f;
  std::size_t n = 0;
  std::string meta;
  bool meta_checked = false;
  while (std::getline(in, line)) {
    if (line.rfind("arrays ", 0) == 0) {
      const std::string count = line.substr(7);
      if (count.empty() || count.size() > 6 ||
          count.find_first_not_of("0123456789") != std::string::npos)
        throw bad("bad array count '" + count + "'");
      n = std::stoul(count);
      break;
    }
    if (line.rfind("meta-checksum ", 0) == 0) {
      if (line.substr(14) != hex(checksum(meta.data(), meta.size())))
        throw bad("the metadata fail their checksum: the file is damaged");
      meta_checked = true;
      continue;
    }
    const auto sp = line.find(' ');
    if (sp == std::string::npos) throw bad("metadata line without a value");
    meta += line + "\n";
    f.meta[line.substr(0, sp)] = unescape(line.substr(sp + 1));
  }
  if (!meta_checked) throw bad("no metadata checksum");
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::getline(in, line)) throw bad("truncated");
    std::istringstream s(line);
    std::string word, sum;
    StateArray a;
    std::size_t rank = 0, nbytes = 0;
    s >> word >> a.name >> a.type >> rank;
    if (word != "array" || !s || rank < 1 || rank > 8 || !type_size(a.type))
      throw bad("bad array header '" + line + "'");
    a.extents.resize(rank);
    std::size_t count = 1;
    for (auto& e : a.extents) {
      long long v = -1;
      s >> v;
      if (!s || v < 0 || v > (1ll << 40)) throw bad("bad extent in array '" + a.name + "'");
      e = std::size_t(v);
      count = e && count > (std::size_t(1) << 50) / e ? 0 : count * e;
    }
    s >> nbytes;
    s >> sum;
    if (!s || nbytes != count * type_size(a.type) || (!ec && nbytes > file_size))
      throw bad("array '" + a.name + "': its size does not match its extents or the file");
    a.bytes.resize(nbytes);
    in.read(a.bytes.data(), static_cast<std::streamsize>(nbytes));
    if (!in || in.get() != '\n') throw bad("truncated array '" + a.name + "'");
    if (sum != hex(checksum(a.bytes.data(), a.bytes.size())))
      throw bad("array '" + a.name + "' fails its checksum: the file is damaged");
    f.arrays.push_back(std::move(a));
  }
  if (!std::getline(in, line) || line != "end") throw bad("truncated (no end marker)");
  return f;
}

long meta_int(const FieldFile& f, const std::string& key, const std::string& file, long lo,
              long hi) {
  const auto& v = f.get(key, file);
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || errno == ERANGE || x < lo || x > hi)
    throw Error(file + ": entry '" + key + "' is \"" + v + "\"; expected an integer from " +
                std::to_string(lo) + " to " + std::to_string(hi) + " (a damaged file?)");
  return x;
}

double meta_double(const FieldFile& f, const std::string& key, const std::string& file) {
  const auto& v = f.get(key, file);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x))
    throw Error(file + ": entry '" + key + "' is \"" + v +
                "\"; expected a finite number (a damaged file?)");
  return x;
}

void grid_to_meta(const linalg::Grid& g, std::map<std::string, std::string>& m) {
  m["dim"] = std::to_string(g.dim);
  m["ghost"] = std::to_string(g.ghost);
  for (int d = 0; d < 3; ++d) {
    const std::string s = std::to_string(d);
    m["cells" + s] = std::to_string(g.cells[d]);
    m["length" + s] = exact(g.length[d]);
    m["origin" + s] = exact(g.origin[d]);
  }
}

linalg::Grid grid_from_meta(const FieldFile& f, const std::string& file) {
  linalg::Grid g;
  g.dim = int(meta_int(f, "dim", file, 1, 3));
  g.ghost = int(meta_int(f, "ghost", file, 0, 8));
  for (int d = 0; d < 3; ++d) {
    const std::string s = std::to_string(d);
    g.cells[d] = int(meta_int(f, "cells" + s, file, 1, 2000000000));
    g.length[d] = meta_double(f, "length" + s, file);
    g.origin[d] = meta_double(f, "origin" + s, file);
    if (!(g.length[d] > 0))
      throw Error(file + ": entry 'length" + s + "' is not positive (a damaged file?)");
  }
  return g;
}

void write_frame_file(const std::string& path, const linalg::Grid& grid,
                      const std::vector<HostField>& fields, double time, long step) {
  FieldFile ff;
  ff.meta["kind"] = "frame";
  ff.meta["time"] = exact(time);
  ff.meta["step"] = std::to_string(step);
  grid_to_meta(grid, ff.meta);
  for (const auto& f : fields) {
    StateArray a{f.name,
                 "float64",
                 {std::size_t(f.components), std::size_t(grid.cells[0]), std::size_t(grid.cells[1]),
                  std::size_t(grid.cells[2])},
                 {}};
    a.bytes.resize(f.values.size() * sizeof(double));
    std::memcpy(a.bytes.data(), f.values.data(), a.bytes.size());
    ff.arrays.push_back(std::move(a));
  }
  write_field_file(path, ff);
}

std::size_t convert_frames(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw Error(dir + ": not a directory");
  if (!vtk_available())
    throw Error("this kflow was built without VTK; run 'kflow convert' with a build that has VTK");
  // A run holds a flock on its directory while it writes it: a live run's
  // output is refused, and a run waits for this convert before it replaces
  // the directory.
  const DirectoryLock lock(dir, false);
  if (!lock.held())
    throw Error(dir +
                " is in use by a running kflow (a run writing it, or another convert); convert "
                "it when that has ended");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".kff") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(dir + ": no .kff frames to convert");
  // In a run's directory, a .vti or run.pvd its run did not write is a user's
  // file: refused, never replaced.
  {
    const auto foreign = foreign_entries(dir);
    std::vector<std::string> in_the_way;
    for (auto name : files)
      if (std::binary_search(foreign.begin(), foreign.end(),
                             fs::path(name).replace_extension(".vti").string()))
        in_the_way.push_back(fs::path(name).replace_extension(".vti").string());
    if (std::binary_search(foreign.begin(), foreign.end(), std::string("run.pvd")))
      in_the_way.push_back("run.pvd");
    if (!in_the_way.empty()) {
      std::string list;
      for (const auto& n : in_the_way) list += (list.empty() ? "" : ", ") + n;
      throw Error(dir + " holds " + list +
                  ", which kflow did not write; convert would replace them: move them first");
    }
  }
  // Every .vti is written under a temporary name beside its frame; only when
  // every frame has converted do they take their names (a failed convert
  // leaves the directory as it was).
  const std::string temporary = ".convert-" + std::to_string(::getpid());
  std::vector<std::pair<double, std::string>> frames;
  try {
    for (const auto& name : files) {
      const auto path = dir + "/" + name;
      const auto ff = read_field_file(path, "the frame");
      if (ff.get("kind", path) != "frame") throw Error(path + ": not a frame file");
      const auto g = grid_from_meta(ff, path);
      std::vector<HostField> fields;
      for (const auto& arr : ff.arrays) {
        const auto& e = arr.extents;
        if (arr.type != "float64" || e.size() != 4 || e[0] < 1 || e[1] != std::size_t(g.cells[0]) ||
            e[2] != std::size_t(g.cells[1]) || e[3] != std::size_t(g.cells[2]) ||
            arr.bytes.size() != e[0] * g.interior_cells() * sizeof(double))
          throw Error(path + ": array '" + arr.name + "' does not match the frame's grid");
        HostField f;
        f.name = arr.name;
        f.components = static_cast<int>(e[0]);
        f.values.resize(arr.bytes.size() / sizeof(double));
        std::memcpy(f.values.data(), arr.bytes.data(), arr.bytes.size());
        fields.push_back(std::move(f));
      }
      const double t = meta_double(ff, "time", path);
      const auto out = fs::path(name).replace_extension(".vti").string();
      write_vti(dir + "/" + out + temporary, g, fields, t);
      frames.emplace_back(t, out);
    }
    std::vector<std::string> names{"run.pvd"};
    for (const auto& [t, name] : frames) names.push_back(name);
    record_run_files(dir, names);
  } catch (...) {
    for (const auto& [t, name] : frames) std::remove((dir + "/" + name + temporary).c_str());
    throw;
  }
  for (const auto& [t, name] : frames)
    if (std::rename((dir + "/" + name + temporary).c_str(), (dir + "/" + name).c_str()) != 0)
      throw Error("cannot rename " + dir + "/" + name + temporary + " to " + name + ": " +
                  std::strerror(errno));
  write_pvd(dir + "/run.pvd", frames);
  return frames.size();
}

}  // namespace kflow::io
