#pragma once
// The one exception type kflow throws for user-facing failures: bad input,
// unavailable backends, I/O problems, blow-ups.  The CLI prints what() as a
// paragraph and exits non-zero.

#include <stdexcept>
#include <string>

namespace kflow {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kflow
