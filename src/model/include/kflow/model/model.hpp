#pragma once
// The interface between the core and a model.  Host-side and type-erased:
// a model is a class template on (execution space, real type) behind this
// interface; the core drives it without knowing which one it is.

#include <csignal>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kflow/geometry/body.hpp"
#include "kflow/linalg/dist/decomposition.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow {

class Config;

// The run's request to stop its solves at once (a second Ctrl-C; the driver's
// signal handler sets it): a model hands it to every solve it makes
// (linalg::SolveControl::stop), which then throws linalg::Cancelled.
const volatile std::sig_atomic_t* solve_stop_flag();

// A cell-centred field copied to the host for output: interior cells only,
// i fastest, components interleaved (vectors always have 3 components).
struct HostField {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

// A raw state array for checkpoints: the exact bytes of a device View
// (ghost layers included), so that a restart continues bit-for-bit.
struct StateArray {
  std::string name;
  std::string type;  // "float32" | "float64"
  std::vector<std::size_t> extents;
  std::vector<char> bytes;
};

using Diagnostics = std::vector<std::pair<std::string, double>>;

// What a model's parse step returns: the validated parameters, before any
// allocation.  Each model derives its own.
struct ModelSetup {
  virtual ~ModelSetup() = default;
  // The set-up's work that needs the grid's cells on the host (a model's mask
  // of the bodies and the checks on it), for a model whose places_cells():
  // place_bodies() (case_geometry.hpp) calls it once Kokkos runs, after the
  // case's memory estimate and before the model is made ('kflow check'
  // too), with the solid flag of every cell centre (i fastest, no ghosts; 0
  // fluid, body id + 1 solid; all 0 without bodies).  Problems are thrown as
  // one Error naming them all.
  virtual bool places_cells() const { return false; }
  virtual void place_cells(const std::vector<unsigned char>& solid) { (void)solid; }
  // The grid whose cell centres place_cells() receives: `grid`, or the
  // model's own nodes where they are not the domain's cell centres (split3d).
  virtual linalg::Grid cells_grid() const { return grid; }
  bool cells_placed = false;  // (place_bodies has run)
  // The value of output field `field` (its first component) at point x on
  // the domain side (axis, side: 0 low, 1 high) when that side's boundary
  // condition fixes it (a wall, a Dirichlet side); false otherwise.  Line
  // samples use it at points on the boundary instead of the nearest cell.
  virtual bool boundary_value(const std::string& field, int axis, int side, const double x[3],
                              double& value) const {
    (void)field, (void)axis, (void)side, (void)x, (void)value;
    return false;
  }
  linalg::Grid grid;
  std::vector<std::string> fields;  // every field the model can output
  // The case's bodies as placed (parse_bodies); a run writes their surface
  // as body.stl beside its frames.
  std::vector<geometry::Body> bodies;
  // Messages about the set-up worth a user's attention (e.g. geometry fixed
  // up); printed by 'kflow check' and at the start of a run.
  std::vector<std::string> notes;
  // Real values the model allocates per cell of grid.extent() (ghosts
  // included), for the memory estimate that a run checks before allocating.
  double values_per_cell = 0;
  // Real values per cell a checkpoint saves (save_state: copied to the host twice).
  double saved_values_per_cell = 0;
  // The time step the discretisation fixes (Model::fixed_dt()), when the
  // set-up already knows it; 0 otherwise.
  double fixed_dt = 0;
  // An upper bound of the stable time step at the start, when the set-up
  // knows one (0: unknown): check refuses a time.dt above it, as run does.
  double stable_dt_bound = 0;
  // The blocks of a distributed run (set by the driver before the model is
  // made; one block by default).  Only models registered as distributed
  // (ModelInfo::distributed) are made with more than one: they run on the
  // block of decomposition.rank and fill its periodic flags themselves.
  linalg::dist::Decomposition decomposition;
};

// Optional capability: time steps chosen on the device.  A model whose
// stable dt depends on its state can compute it where the state lives, so
// that the driver runs several steps without reading anything back
// (Model::device_dt() returns it; mac2d offers it).
class DeviceDt {
 public:
  static constexpr long kDeviceDtBatch = 1024;
  virtual ~DeviceDt() = default;
  // An upper bound of stable_dt() over every state (mac2d: the diffusive limit).
  virtual double max_stable_dt() const = 0;
  // Enqueues one step by dt = safety * stable_dt(current state), computed on
  // the device with the same arithmetic as stable_dt(): the same bits.
  virtual void step_device_dt(double safety) = 0;
  // Waits; returns the dts of the last n such steps (n <= kDeviceDtBatch).
  virtual std::vector<double> device_dts(long n) = 0;
};

// What one call of a model's Profiling region moves per cell in an ideal
// implementation (kflow bench's phase table: the region's bandwidth).
struct RegionBytes {
  std::string region;  // "kflow::split3d::x_sweep"
  double bytes_per_cell = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const linalg::Grid& grid() const = 0;
  // Largest stable time step at time t (the driver multiplies by the safety factor).
  virtual double stable_dt(double t) const = 0;
  // The time step fixed by the model's discretisation (lattice Boltzmann:
  // one lattice step), or 0 when the driver chooses dt.  When it is set the
  // driver always steps by exactly this dt (no safety factor), and output
  // times and the end are reached at the first step at or after them.
  virtual double fixed_dt() const { return 0; }
  // Advances the state from t to t + dt.  Asynchronous: no host copy.
  virtual void step(double t, double dt) = 0;
  // Optional capabilities (nullptr: not offered).
  virtual DeviceDt* device_dt() { return nullptr; }
  // Scalar diagnostics at time t (device reductions; the log's columns).
  virtual Diagnostics diagnostics(double t) = 0;
  // A field at time t, copied to the host (output steps only).
  virtual HostField field(const std::string& name, double t) = 0;
  virtual std::vector<StateArray> save_state() = 0;
  virtual void restore_state(const std::vector<StateArray>& state) = 0;
  // Bytes moved per cell and step by an ideal implementation (for the
  // effective bandwidth in summaries and benchmarks).
  virtual double bytes_per_cell_step() const = 0;
  // The same per call of the phase regions whose calls all move the same
  // bytes (kflow bench times every region: docs/performance.md, "Profiling a
  // run"); the regions not listed are timed without a bandwidth.
  virtual std::vector<RegionBytes> region_bytes() const { return {}; }
  // Waits for all work submitted by the model.
  virtual void fence() = 0;
  // Wall time this rank spent in halo exchanges so far (distributed runs).
  virtual double exchange_seconds() const { return 0; }
  // The bytes of the state this rank holds in the execution space's memory
  // (the benchmarks' memory per cell); 0: not counted by the model.
  virtual double state_bytes() const { return 0; }
  // Notes the model found while setting up its state on the device (e.g.
  // boundary links that fell back to a simpler rule), printed once.
  virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace kflow
