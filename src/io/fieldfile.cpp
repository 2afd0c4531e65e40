#include "kflow/io/fieldfile.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kflow/core/error.hpp"
#include "kflow/io/files.hpp"
#include "kflow/io/pvd.hpp"
#include "kflow/io/vtk.hpp"

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

void write_field_file(const std::string& path, const FieldFile& f) {
  write_atomic(
      path,
      [&](std::ostream& o) {
        o << "KFLOW-FIELDS " << field_file_version << "\n";
        for (const auto& [k, v] : f.meta) o << k << " " << v << "\n";
        o << "arrays " << f.arrays.size() << "\n";
        for (const auto& a : f.arrays) {
          o << "array " << a.name << " " << a.type << " " << a.extents.size();
          for (auto e : a.extents) o << " " << e;
          o << " " << a.bytes.size() << "\n";
          o.write(a.bytes.data(), static_cast<std::streamsize>(a.bytes.size()));
          o << "\n";
        }
        o << "end\n";
      },
      true);
}

FieldFile read_field_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file");
  auto bad = [&](const std::string& why) -> Error {
    return Error(path + ": not a valid kflow field file (" + why + ")");
  };
  std::string line;
  if (!std::getline(in, line) || line.rfind("KFLOW-FIELDS ", 0) != 0) throw bad("wrong header");
  const int version = std::atoi(line.c_str() + 13);
  if (version != field_file_version)
    throw Error(path + ": field file format version " + std::to_string(version) +
                ", this kflow reads version " + std::to_string(field_file_version));
  FieldFile f;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (line.rfind("arrays ", 0) == 0) {
      n = std::stoul(line.substr(7));
      break;
    }
    const auto sp = line.find(' ');
    if (sp == std::string::npos) throw bad("metadata line without a value");
    f.meta[line.substr(0, sp)] = line.substr(sp + 1);
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::getline(in, line)) throw bad("truncated");
    std::istringstream s(line);
    std::string word;
    StateArray a;
    std::size_t rank = 0, nbytes = 0;
    s >> word >> a.name >> a.type >> rank;
    if (word != "array" || !s || rank > 8) throw bad("bad array header");
    a.extents.resize(rank);
    for (auto& e : a.extents) s >> e;
    s >> nbytes;
    if (!s) throw bad("bad array header");
    a.bytes.resize(nbytes);
    in.read(a.bytes.data(), static_cast<std::streamsize>(nbytes));
    if (!in || in.get() != '\n') throw bad("truncated array '" + a.name + "'");
    f.arrays.push_back(std::move(a));
  }
  if (!std::getline(in, line) || line != "end") throw bad("truncated (no end marker)");
  return f;
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
  try {
    g.dim = std::stoi(f.get("dim", file));
    g.ghost = std::stoi(f.get("ghost", file));
    for (int d = 0; d < 3; ++d) {
      const std::string s = std::to_string(d);
      g.cells[d] = std::stoi(f.get("cells" + s, file));
      g.length[d] = std::stod(f.get("length" + s, file));
      g.origin[d] = std::stod(f.get("origin" + s, file));
    }
  } catch (const std::logic_error&) {  // std::stoi/stod on a damaged entry
    throw Error(file + ": not a valid kflow field file (bad grid entry)");
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
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".kff") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(dir + ": no .kff frames to convert");
  std::vector<std::pair<double, std::string>> frames;
  for (const auto& name : files) {
    const auto path = dir + "/" + name;
    const auto ff = read_field_file(path);
    if (ff.get("kind", path) != "frame") throw Error(path + ": not a frame file");
    const auto g = grid_from_meta(ff, path);
    std::vector<HostField> fields;
    for (const auto& arr : ff.arrays) {
      if (arr.type != "float64" || arr.extents.size() != 4 ||
          arr.bytes.size() != arr.extents[0] * g.interior_cells() * sizeof(double))
        throw Error(path + ": array '" + arr.name + "' does not match the frame's grid");
      HostField f;
      f.name = arr.name;
      f.components = static_cast<int>(arr.extents[0]);
      f.values.resize(arr.bytes.size() / sizeof(double));
      std::memcpy(f.values.data(), arr.bytes.data(), arr.bytes.size());
      fields.push_back(std::move(f));
    }
    const double t = std::stod(ff.get("time", path));
    const auto out = fs::path(name).replace_extension(".vti").string();
    write_vti(dir + "/" + out, g, fields, t);
    frames.emplace_back(t, out);
  }
  write_pvd(dir + "/run.pvd", frames);
  return frames.size();
}

}  // namespace kflow::io
