#include "kflow/io/fieldfile.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "kflow/core/error.hpp"
#include "kflow/io/files.hpp"

namespace kflow::io {

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const std::string& FieldFile::get(const std::string& key, const std::string& file) const {
  auto it = meta.find(key);
  if (it == meta.end()) throw Error(file + ": not a valid kflow field file: no '" + key + "' entry");
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

}  // namespace kflow::io
