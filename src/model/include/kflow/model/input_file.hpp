#pragma once
// One check for every file kflow reads as input (case files, checkpoints and
// frames, STL and OBJ meshes): a regular file of a plausible size, looked at
// with stat() BEFORE it is opened.  Opening a FIFO waits for a writer for
// ever, a device such as /dev/zero never ends (read until memory runs out),
// and a directory opens as a stream that throws or reads as empty: none of
// them is ever opened.

#include <cstdint>
#include <string>

namespace kflow {

// Why `path` cannot be read as `what` ("the case file", "the checkpoint",
// "the STL file"), or "" when it can: it is a regular file (after
// symbolic links) of at most `max_bytes` bytes that opens for reading.
// The message is "PATH: cannot read WHAT: REASON", REASON one of "it is a
// directory, not a file", "it is a FIFO (named pipe), not a file", "it is a
// character device, not a file", ..., "it has N bytes, WHAT at most M", or
// the system's reason ("No such file or directory", "Permission denied").
// With `in_directory` (a file name such as "checkpoint.kfc"), a directory
// that holds such a file is answered with the hint "did you mean
// DIR/NAME?".
std::string input_file_problem(const std::string& path, const std::string& what,
                               std::uintmax_t max_bytes, const std::string& in_directory = "");

// Limits stated once: a case file or a line's reference data (text) at
// most 16 MiB, a mesh file or a frame list (.pvd) 2 GiB, a field file
// (checkpoint, frame) or a carried CSV output 1 TiB.
inline constexpr std::uintmax_t max_case_file_bytes = std::uintmax_t(16) << 20;
inline constexpr std::uintmax_t max_mesh_file_bytes = std::uintmax_t(2) << 30;
inline constexpr std::uintmax_t max_field_file_bytes = std::uintmax_t(1) << 40;

}  // namespace kflow
