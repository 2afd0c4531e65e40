#pragma once
// A run's restart from a checkpoint (internal to the driver): the checkpoint
// read and checked against the case, and the case keys the restart changes.

#include <iosfwd>
#include <string>

#include "kflow/core/driver.hpp"
#include "kflow/io/fieldfile.hpp"

namespace kflow {

// Where a run starts: t, step and the next frame's number.
struct Start {
  double t = 0;
  long step = 0, next_frame = 0;
  // The checkpoint's frame (and its log row) were a stop's, not an output
  // time's: a restart numbers on from that frame and carries neither over.
  bool stop_frame = false, stop_row = false;
};

// Reads checkpoint `f` and checks that it belongs to this case and is not
// already at its end; `s` gets its time, step and next frame.
io::FieldFile read_checkpoint(const PreparedCase& pc, const std::string& f, Start& s);

// A restart runs the case as given now; every key that differs from the run
// that wrote the checkpoint (its case is in the checkpoint) is named on `log`.
void note_case_changes(const io::FieldFile& ck, const PreparedCase& pc, const std::string& f,
                       std::ostream& log);

}  // namespace kflow
