#pragma once
// kflow field files: named arrays plus metadata, exact bytes.  One format
// serves checkpoints (.kfc: a model's raw state, ghost layers included) and
// the frames of a build without VTK (.kff: cell-centred output fields, which
// `kflow convert` turns into .vti/.pvd where VTK exists).
//
// Layout (format version 2, the only one read: format 1 had no checksums and
// unescaped metadata, and is refused with a message):
//   "KFLOW-FIELDS 2\n"
//   "<key> <value>\n"               metadata, one per line, value to end of line
//                                   (backslash and newline escaped as \\ and \n)
//   "meta-checksum <hex>\n"         over the metadata lines as written
//   "arrays <n>\n"
//   n x { "array <name> <type> <rank> <e0> .. <e(rank-1)> <nbytes> <hex>\n"
//         <nbytes raw bytes> "\n" }  hex: the checksum of the bytes
//   "end\n"
// <type>: float64, float32, float16s or float16c (lbm's stored 16-bit words, raw).
// Numbers in metadata are written with 17 significant digits (exact round trip).
// The checksum (checksum()) detects any change of one 8-byte word for certain.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/model.hpp"

namespace kflow::io {

inline constexpr int field_file_version = 2;

struct FieldFile {
  std::map<std::string, std::string> meta;
  std::vector<StateArray> arrays;

  const std::string& get(const std::string& key, const std::string& file) const;
  const StateArray* array(const std::string& name) const;
};

void write_field_file(const std::string& path, const FieldFile& f);  // atomic
// Reads a field file, or throws kflow::Error naming it: `what` names it in
// the messages ("the checkpoint"); a directory holding `in_directory`
// ("checkpoint.kfc") is answered with that file's path as a hint.
FieldFile read_field_file(const std::string& path, const std::string& what = "the field file",
                          const std::string& in_directory = "");

std::string exact(double v);  // 17 significant digits

// A 64-bit checksum of n bytes (a multiply-rotate hash over 8-byte words).
std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t seed = 0);

// Metadata numbers read strictly: the whole value, within [lo, hi]; else an
// Error naming the file, the key and the value.
long meta_int(const FieldFile& f, const std::string& key, const std::string& file, long lo,
              long hi);
double meta_double(const FieldFile& f, const std::string& key, const std::string& file);

// Grid description <-> metadata entries (dim, ghost, cellsD, lengthD, originD).
void grid_to_meta(const linalg::Grid& g, std::map<std::string, std::string>& meta);
linalg::Grid grid_from_meta(const FieldFile& f, const std::string& file);

// An output frame as a field file (kind "frame"): cell-centred float64
// arrays with extents [components, nx, ny, nz].
void write_frame_file(const std::string& path, const linalg::Grid& grid,
                      const std::vector<HostField>& fields, double time, long step);
// Turns every frame_*.kff in `dir` into .vti and writes dir/run.pvd; returns
// the number of frames.  Needs VTK.
std::size_t convert_frames(const std::string& dir);

}  // namespace kflow::io
