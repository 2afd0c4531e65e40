#pragma once
// A strict STL reader, binary and ASCII, of our own.
//
// Why not a library: VTK's vtkSTLReader is there only where VTK is (VTK is
// optional in kflow), and neither assimp nor ADMesh exists on the GPU
// machines (an Ubuntu image without the Debian archive).  Both formats are
// small, so a reader here is a few hundred lines, and it can be strict where
// the libraries are lenient: a truncated binary file, a stray token in an
// ASCII file, a facet with two vertices are errors naming the file (and the
// line), not a mesh with a piece missing.
//
// Binary: an 80-byte header, a little-endian uint32 triangle count, then 50
// bytes per triangle (normal, three vertices as 12 float32, a 2-byte
// attribute); the file size must be exactly 84 + 50 count.  ASCII:
//   solid NAME
//     facet normal nx ny nz
//       outer loop
//         vertex x y z     (three times)
//       endloop
//     endfacet   (...)
//   endsolid NAME
// (several solids in a row are read as one mesh; keywords in any case).
// Which one: a file whose size matches its binary count is binary, even when
// its header begins with "solid" (many binary writers put it there); else
// a file that begins with "solid" and holds only text is ASCII.  The facet
// normals are read and checked as numbers but not used: normals come from
// the vertices.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "kflow/geometry/mesh.hpp"

namespace kflow::geometry {

namespace detail {

inline std::uint32_t le_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}
inline float le_f32(const unsigned char* p) {
  const std::uint32_t u = le_u32(p);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline bool starts_with_solid(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (s.size() - i < 5) return false;
  for (int k = 0; k < 5; ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != "solid"[k]) return false;
  return i + 5 == s.size() || std::isspace(static_cast<unsigned char>(s[i + 5]));
}

inline bool all_text(const std::string& s) {
  for (unsigned char c : s)
    if (!(c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || (c >= 32 && c < 127)))
      return false;
  return true;
}

inline std::string plural(std::uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

inline TriangleMesh parse_binary_stl(const std::string& bytes, const std::string& name) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t n = le_u32(p + 80);
  if (n == 0) throw MeshError(name + ": binary STL with no triangles");
  TriangleMesh m;
  m.source = name;
  m.vertices.resize(3 * n);
  for (std::uint64_t t = 0; t < n; ++t) {
    const unsigned char* r = p + 84 + 50 * t + 12;  // (the normal skipped)
    for (int k = 0; k < 3; ++k)
      m.vertices[3 * t + k] = {le_f32(r + 12 * k), le_f32(r + 12 * k + 4), le_f32(r + 12 * k + 8)};
  }
  return m;
}

// The tokens of an ASCII STL with their line numbers.
class StlTokens {
 public:
  StlTokens(const std::string& s, const std::string& name) : s_(s), name_(name) {}
  bool at_end() {
    skip_space();
    return i_ >= s_.size();
  }
  int line() const { return line_; }
  std::string next() {
    skip_space();
    const std::size_t b = i_;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    return s_.substr(b, i_ - b);
  }
  // The rest of the current line (a solid's name).
  void skip_line() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
  }
  [[noreturn]] void fail(const std::string& expected, const std::string& got) const {
    throw MeshError(name_ + ":" + std::to_string(line_) + ": ASCII STL: expected " + expected +
                    ", got " + (got.empty() ? "the end of the file" : "'" + got + "'"));
  }
  void keyword(const char* word) {
    const std::string t = next();
    if (!same(t, word)) fail(std::string("'") + word + "'", t);
  }
  static bool same(const std::string& t, const char* word) {
    const std::size_t n = std::strlen(word);
    if (t.size() != n) return false;
    for (std::size_t k = 0; k < n; ++k)
      if (std::tolower(static_cast<unsigned char>(t[k])) != word[k]) return false;
    return true;
  }
  double number() {
    const std::string t = next();
    char* end = nullptr;
    errno = 0;
    const double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) fail("a number", t);
    return v;  // (NaN, Inf and out-of-range values are the mesh check's)
  }

 private:
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
  }
  const std::string& s_;
  const std::string& name_;
  std::size_t i_ = 0;
  int line_ = 1;
};

inline TriangleMesh parse_ascii_stl(const std::string& text, const std::string& name) {
  TriangleMesh m;
  m.source = name;
  StlTokens in(text, name);
  do {
    in.keyword("solid");
    in.skip_line();
    for (;;) {
      const std::string t = in.next();
      if (StlTokens::same(t, "endsolid")) break;
      if (!StlTokens::same(t, "facet")) in.fail("'facet' or 'endsolid'", t);
      in.keyword("normal");
      for (int k = 0; k < 3; ++k) in.number();
      in.keyword("outer");
      in.keyword("loop");
      for (int v = 0; v < 3; ++v) {
        in.keyword("vertex");
        Vec3 p;
        p.x = in.number(), p.y = in.number(), p.z = in.number();
        m.vertices.push_back(p);
      }
      in.keyword("endloop");
      in.keyword("endfacet");
    }
    in.skip_line();
  } while (!in.at_end());
  if (m.vertices.empty()) throw MeshError(name + ": ASCII STL with no facets");
  return m;
}

}  // namespace detail

// The mesh in `bytes` (a whole STL file); `name` stands for the file in
// messages.  Throws MeshError.  The mesh is read as it is: check_mesh()
// checks it.
inline TriangleMesh parse_stl(const std::string& bytes, const std::string& name) {
  using detail::plural;
  const std::uint64_t size = bytes.size();
  if (size == 0) throw MeshError(name + ": empty file (0 bytes): not an STL file");
  const bool solid = detail::starts_with_solid(bytes);
  std::uint64_t count = 0, expected = 0;
  if (size >= 84) {
    count = detail::le_u32(reinterpret_cast<const unsigned char*>(bytes.data()) + 80);
    expected = 84 + 50 * count;
    if (expected == size) return detail::parse_binary_stl(bytes, name);
  }
  if (solid && detail::all_text(bytes)) return detail::parse_ascii_stl(bytes, name);
  // An ASCII file saved with a UTF-8 byte order mark (editors on Windows):
  // the text after it (the OBJ reader skips one too)
  if (bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    const std::string text = bytes.substr(3);
    if (detail::starts_with_solid(text) && detail::all_text(text))
      return detail::parse_ascii_stl(text, name);
  }
  if (size < 84)
    throw MeshError(name + ": " + plural(size, "byte") +
                    ": too short for a binary STL (an 80-byte header and a 4-byte triangle count) "
                    "and not an ASCII STL (which begins with 'solid' and holds only text)");
  const std::uint64_t whole = (size - 84) / 50;
  std::string what = name + ": binary STL: the header counts " + plural(count, "triangle") +
                     ", which take 84 + 50 x " + std::to_string(count) + " = " +
                     std::to_string(expected) + " bytes; the file has " + plural(size, "byte");
  if (size < expected)
    what += ": truncated (" + plural(whole, "whole triangle") + ", " +
            std::to_string(expected - size) + " bytes missing)";
  else
    what += " (" + std::to_string(size - expected) + " bytes too many)";
  if (solid) what += "; it begins with 'solid' but is not text, so it is not an ASCII STL";
  throw MeshError(what);
}

inline TriangleMesh read_stl(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw MeshError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw MeshError(path + ": read error");
  return parse_stl(bytes, path);
}

// The mesh as a binary STL file (float32 coordinates; facet normals from
// the vertices, zero for a degenerate triangle).
inline std::string stl_binary(const TriangleMesh& mesh, const std::string& header = "kflow") {
  std::string out(84 + 50 * mesh.triangles(), '\0');
  auto* p = reinterpret_cast<unsigned char*>(&out[0]);
  std::memcpy(p, header.data(), std::min<std::size_t>(header.size(), 80));
  auto put = [](unsigned char* q, std::uint32_t u) {
    for (int k = 0; k < 4; ++k) q[k] = static_cast<unsigned char>(u >> (8 * k));
  };
  auto putf = [&](unsigned char* q, double v) {
    const float f = static_cast<float>(v);
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    put(q, u);
  };
  put(p + 80, static_cast<std::uint32_t>(mesh.triangles()));
  for (std::size_t t = 0; t < mesh.triangles(); ++t) {
    const Vec3* v = &mesh.vertices[3 * t];
    const Vec3 n = normalized(cross(v[1] - v[0], v[2] - v[0]));
    unsigned char* r = p + 84 + 50 * t;
    for (int a = 0; a < 3; ++a) putf(r + 4 * a, n[a]);
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) putf(r + 12 + 12 * k + 4 * a, v[k][a]);
  }
  return out;
}

// The mesh as an ASCII STL file (coordinates with 17 significant digits:
// doubles read back bit for bit).
inline std::string stl_ascii(const TriangleMesh& mesh, const std::string& name = "kflow") {
  std::string out = "solid " + name + "\n";
  char line[160];
  for (std::size_t t = 0; t < mesh.triangles(); ++t) {
    const Vec3* v = &mesh.vertices[3 * t];
    const Vec3 n = normalized(cross(v[1] - v[0], v[2] - v[0]));
    std::snprintf(line, sizeof line, "  facet normal %.9g %.9g %.9g\n    outer loop\n", n.x, n.y,
                  n.z);
    out += line;
    for (int k = 0; k < 3; ++k) {
      std::snprintf(line, sizeof line, "      vertex %.17g %.17g %.17g\n", v[k].x, v[k].y, v[k].z);
      out += line;
    }
    out += "    endloop\n  endfacet\n";
  }
  return out + "endsolid " + name + "\n";
}

}  // namespace kflow::geometry
