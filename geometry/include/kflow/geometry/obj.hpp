#pragma once
// A strict Wavefront OBJ reader (polygon meshes) of our own.
//
// Why not a library: VTK's vtkOBJReader is there only where VTK is (VTK is
// optional in kflow), and neither assimp nor tinyobjloader exists on the GPU
// machines (an Ubuntu image without the Debian archive).  The part of the
// format a closed surface needs is small, so a reader here is a couple of
// hundred lines, and it can be strict where readers in the wild are lenient:
// a number with a stray character, a face index past the vertices defined,
// a statement it does not know are errors naming the file and the line, not
// a mesh with a piece missing.
//
// Read, one statement a line:
//   v x y z [w]           a vertex (w, when there, is read as a number and not used)
//   f v1 v2 v3 ...        a face of 3 or more vertices, each i, i/t, i//n or i/t/n
// Indices count from 1 in the order the statements come; a negative one
// counts back from the last one defined (-1 the last).  A face is
// triangulated as a fan (v1, vk, vk+1): a convex polygon (or one that is
// star-shaped from v1) as every writer emits them.  The texture and normal
// indices are checked against the vt and vn statements before them but not
// used: normals come from the vertices, so a face must be wound
// counter-clockwise seen from outside, as in an STL file.
// Skipped: vt, vn and vp (their numbers checked), o, g, s, usemtl, mtllib,
// l, comments (# to the end of the line) and blank lines.  A line ending in
// a backslash goes on on the next one (the backslash separates tokens, as a
// space).  Keywords are lower case, as the format has them; anything else
// (free-form curves and surfaces, points) is an error.

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kflow/geometry/mesh.hpp"

namespace kflow::geometry {

namespace detail {

class ObjParser {
 public:
  ObjParser(const std::string& text, const std::string& name) : text_(text), name_(name) {
    mesh_.source = name;
  }

  TriangleMesh parse() {
    std::size_t i = 0;
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // a UTF-8 byte order mark
    bool continued = false;
    while (i < text_.size()) {
      ++line_;
      std::size_t end = text_.find('\n', i);
      if (end == std::string::npos) end = text_.size();
      std::string_view l(text_.data() + i, end - i);
      i = end + 1;
      for (unsigned char c : l)
        if ((c < 32 && c != '\t' && c != '\r' && c != '\f' && c != '\v') || c == 127) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", c);
          fail(line_, std::string("byte ") + hex + " is not text (a binary file?)");
        }
      const std::size_t hash = l.find('#');
      if (hash != std::string_view::npos) l = l.substr(0, hash);
      while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.remove_suffix(1);
      const bool more = !l.empty() && l.back() == '\\';
      if (more) l.remove_suffix(1);
      if (!continued) tokens_.clear();
      split(l);
      continued = more;
      if (!continued && !tokens_.empty()) statement();
    }
    if (continued && !tokens_.empty()) statement();  // (a backslash on the last line)
    if (faces_ == 0)
      fail(line_ > 0 ? line_ : 1, "no faces ('f' statements) by the end of the file (" +
                                      count(points_.size(), "vertex", "vertices") +
                                      "): a mesh needs at least one");
    return std::move(mesh_);
  }

 private:
  struct Token {
    std::string_view text;
    int line;
  };

  static std::string count(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw MeshError(name_ + ":" + std::to_string(line) + ": OBJ: " + what);
  }

  void split(std::string_view l) {
    std::size_t k = 0;
    for (;;) {
      while (k < l.size() && std::isspace(static_cast<unsigned char>(l[k]))) ++k;
      if (k >= l.size()) return;
      const std::size_t b = k;
      while (k < l.size() && !std::isspace(static_cast<unsigned char>(l[k]))) ++k;
      tokens_.push_back({l.substr(b, k - b), line_});
    }
  }

  double number(const Token& t, std::string_view what) {
    buf_.assign(t.text.data(), t.text.size());
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(buf_.c_str(), &end);
    if (end != buf_.c_str() + buf_.size())
      fail(t.line, "'" + std::string(what) + "': expected a number, got '" + buf_ + "'");
    return v;  // (NaN, Inf and out-of-range values are the mesh check's)
  }

  // The numbers of a vt, vn or vp statement, min..max of them.
  void numbers(std::size_t min, std::size_t max, const char* takes) {
    const Token& kw = tokens_[0];
    for (std::size_t k = 1; k < tokens_.size(); ++k) number(tokens_[k], kw.text);
    const std::size_t n = tokens_.size() - 1;
    if (n < min || n > max)
      fail(kw.line, "'" + std::string(kw.text) + "' takes " + takes + ", got " +
                        count(n, "number", "numbers"));
  }

  // An index of a face: 0-based into `defined` items, or an error.
  std::size_t index(const Token& t, std::string_view digits, std::size_t defined, const char* what,
                    const char* whats, const char* keyword) {
    buf_.assign(digits.data(), digits.size());
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(buf_.c_str(), &end, 10);
    if (buf_.empty() || end != buf_.c_str() + buf_.size() || errno == ERANGE) bad_reference(t);
    if (i == 0)
      fail(t.line, std::string(what) + " index 0 in '" + std::string(t.text) +
                       "': indices count from 1 (a negative one counts back from the last " + what +
                       " defined)");
    const std::uint64_t mag = i > 0 ? std::uint64_t(i) : std::uint64_t(-(i + 1)) + 1;
    if (mag > defined)
      fail(t.line, std::string(what) + " index " + std::to_string(i) + " in '" +
                       std::string(t.text) + "' is out of range: " + count(defined, what, whats) +
                       " (" + keyword + ") defined up to this line" +
                       (i < 0 && defined > 0 ? " (-1 is the last)" : ""));
    return i > 0 ? std::size_t(i - 1) : std::size_t(defined - mag);
  }

  [[noreturn]] void bad_reference(const Token& t) const {
    fail(t.line, "bad face vertex '" + std::string(t.text) +
                     "': expected i, i/t, i//n or i/t/n with integer indices");
  }

  // A face vertex i, i/t, i//n or i/t/n: the vertex (0-based).
  std::size_t vertex(const Token& t) {
    std::string_view parts[3];
    std::size_t n = 0, b = 0;
    for (;;) {
      const std::size_t s = t.text.find('/', b);
      if (n == 3) bad_reference(t);
      parts[n++] = t.text.substr(b, s == std::string_view::npos ? s : s - b);
      if (s == std::string_view::npos) break;
      b = s + 1;
    }
    if (parts[0].empty() || (n == 2 && parts[1].empty()) || (n == 3 && parts[2].empty()))
      bad_reference(t);
    const std::size_t v = index(t, parts[0], points_.size(), "vertex", "vertices", "v");
    if (n >= 2 && !parts[1].empty())
      index(t, parts[1], textures_, "texture coordinate", "texture coordinates", "vt");
    if (n == 3) index(t, parts[2], normals_, "normal", "normals", "vn");
    return v;
  }

  void statement() {
    const Token& kw = tokens_[0];
    const std::string_view k = kw.text;
    if (k == "v") {
      Vec3 p;
      for (std::size_t a = 1; a < tokens_.size() && a <= 4; ++a) {
        const double x = number(tokens_[a], k);
        if (a <= 3) p[int(a) - 1] = x;
      }
      if (tokens_.size() < 4 || tokens_.size() > 5)
        fail(kw.line, "'v' takes 3 coordinates x y z (and an optional w), got " +
                          count(tokens_.size() - 1, "number", "numbers"));
      points_.push_back(p);
    } else if (k == "f") {
      const std::size_t n = tokens_.size() - 1;
      face_.clear();
      for (std::size_t a = 1; a <= n; ++a) face_.push_back(vertex(tokens_[a]));
      if (n < 3)
        fail(kw.line, "a face needs 3 or more vertices, got " + count(n, "vertex", "vertices"));
      for (std::size_t a = 1; a + 1 < n; ++a) {
        mesh_.vertices.push_back(points_[face_[0]]);
        mesh_.vertices.push_back(points_[face_[a]]);
        mesh_.vertices.push_back(points_[face_[a + 1]]);
      }
      ++faces_;
    } else if (k == "vt") {
      numbers(1, 3, "1 to 3 numbers u [v [w]]");
      ++textures_;
    } else if (k == "vn") {
      numbers(3, 3, "3 numbers x y z");
      ++normals_;
    } else if (k == "vp") {
      numbers(1, 3, "1 to 3 numbers u [v [w]]");
    } else if (!(k == "o" || k == "g" || k == "s" || k == "usemtl" || k == "mtllib" || k == "l")) {
      fail(kw.line, "unknown statement '" + std::string(k) +
                        "': kflow reads v and f (polygons), and skips vt, vn, vp, o, g, s, "
                        "usemtl, mtllib and l");
    }
  }

  const std::string& text_;
  const std::string& name_;
  TriangleMesh mesh_;
  std::vector<Vec3> points_;
  std::size_t textures_ = 0, normals_ = 0, faces_ = 0;
  std::vector<Token> tokens_;  // the statement being read
  std::vector<std::size_t> face_;
  std::string buf_;  // a token for strtod and strtoll
  int line_ = 0;
};

}  // namespace detail

// The mesh in `text` (a whole OBJ file): every face's triangles in file
// order; `name` stands for the file in messages.  Throws MeshError.  The
// mesh is read as it is: check_mesh() checks it.
inline TriangleMesh parse_obj(const std::string& text, const std::string& name) {
  return detail::ObjParser(text, name).parse();
}

inline TriangleMesh read_obj(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw MeshError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw MeshError(path + ": read error");
  return parse_obj(text, path);
}

}  // namespace kflow::geometry
