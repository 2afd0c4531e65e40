#pragma once
// Halo exchange of a grid field between the blocks of a decomposition: the
// ghost layers beyond each face of a block receive the owned layers of the
// neighbour across it, periodic wrap included, on the axes that are split
// across ranks; an axis one rank holds whole is the caller's to fill,
// exactly as a single-rank run does.
//
// A field is a scalar linalg::Field, or C components per cell stored as a
// View(cell, component) over the block's stored cells, i fastest
// (ComponentsOnGrid in local_grid.hpp; lattice Boltzmann populations).  A HaloPattern says
// which components cross each face (the populations whose velocity points
// into the block) and whether the stencil reads edge and corner ghosts.
// Edges and corners are filled axis by axis: the faces of axis d span the
// ghost layers of the split axes before d, so the faces-only messages of the
// later axes carry what the earlier axes brought in (3 rounds of messages in
// 3D instead of 26 neighbours).  Without them, every face at once.
//
// exchange() fills ghosts from the neighbours' owned layers; reverse() sends
// the ghost layers back into the neighbours' owned layers (an in-place
// lattice Boltzmann step writes its neighbours' slots), axes in the opposite
// order, so that each value reaches its owner through the same blocks; the
// receiver keeps the values that it wrote itself (a predicate says which).
//
// Each face is packed into a contiguous buffer by a kernel on the field's
// execution space and unpacked by a kernel on the receiving side.  Between
// them the buffer travels either device to device with NCCL on the space's
// CUDA stream (a Transport with an NCCL communicator, CUDA spaces only), or
// staged through pinned host memory with MPI_Isend/MPI_Irecv (the MPI
// libraries kflow meets are not CUDA-aware).  Needs MPI (include only where
// KFLOW_HAVE_MPI is defined); NCCL where KFLOW_HAVE_NCCL is.

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/linalg/dist/transport.hpp"
#include "kflow/linalg/field.hpp"

namespace kflow::linalg::dist {

// What crosses the faces of a block.
struct HaloPattern {
  int components = 1;  // components per cell
  // The components received into the ghost layer beyond side `side` of
  // axis d (a neighbour sends the same set from its owned layer); empty:
  // all of them.
  std::function<std::vector<int>(int d, int side)> across;
  bool edges_and_corners = false;  // axis by axis, earlier axes' ghosts included
};

// Whether a Halo on ExecSpace can send device buffers with NCCL.
template <class ExecSpace>
inline constexpr bool nccl_space =
#if defined(KFLOW_HAVE_NCCL) && defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
    false;
#endif

// A keep predicate (Halo::reverse) under which every value received
// replaces the one there (and exchange()'s).
struct ReplaceAll {
  KOKKOS_INLINE_FUNCTION bool operator()(int, int, int, int) const { return false; }
};

namespace detail {

// A scalar field as components (of which there is one).
template <class F>
struct FieldComponents {
  F f;
  KOKKOS_INLINE_FUNCTION typename F::reference_type operator()(int i, int j, int k, int) const {
    if constexpr (F::rank == 2) {
      (void)k;
      return f(i, j);
    } else {
      return f(i, j, k);
    }
  }
};

// Copies the components `comps` of the box r of a into buf (pack) or buf
// into them (unpack, except where keep(i, j, k, c)): component-major, i
// fastest within a component.  A named functor, not a lambda: nvcc's
// host-device lambda wrapper, instantiated alike in two translation units
// (lbm in float and in double both exchange double moments), called a null
// function pointer on the host.
template <class Access, class Keep, class Comps, class Buf>
struct CopyBox {
  Access a;
  Keep keep;
  Comps comps;
  Buf buf;
  int bi, bj, bk, ni, nj, cells;
  bool pack;
  KOKKOS_INLINE_FUNCTION void operator()(int n) const {
    const int m = n % cells, c = comps(n / cells);
    const int i = bi + m % ni, j = bj + (m / ni) % nj, k = bk + m / (ni * nj);
    if (pack)
      buf(n) = a(i, j, k, c);
    else if (!keep(i, j, k, c))
      a(i, j, k, c) = buf(n);
  }
};

template <class ExecSpace, class Access, class Keep, class Comps, class Buf>
void copy_box(const ExecSpace& space, const char* label, const Access& a, const Keep& keep,
              const IndexRange& r, const Comps& comps, const Buf& buf, bool pack) {
  const int bi = r.begin[0], bj = r.begin[1], bk = r.begin[2];
  const int ni = r.end[0] - bi, nj = r.end[1] - bj, cells = int(r.size());
  Kokkos::parallel_for(
      label, RangePolicy<ExecSpace>(space, 0, cells * int(comps.extent(0))),
      CopyBox<Access, Keep, Comps, Buf>{a, keep, comps, buf, bi, bj, bk, ni, nj, cells, pack});
}

#ifdef KFLOW_HAVE_NCCL
inline void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw std::runtime_error(std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r));
}
#endif

}  // namespace detail

template <class ExecSpace, class Real, int Dim>
class Halo {
  using Mem = typename ExecSpace::memory_space;
  using Buffer = Kokkos::View<Real*, Mem>;
  // The staging buffers: the device buffers themselves where the host can
  // read them, pinned host memory otherwise (asynchronous copies).
  using HostBuffer =
      std::conditional_t<Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible, Buffer,
                         Kokkos::View<Real*, Kokkos::SharedHostPinnedSpace>>;
  using Comps = Kokkos::View<int*, Mem>;

  struct Face {
    int axis, peer, send_tag, recv_tag;
    IndexRange send, recv;         // owned layer sent, ghost layer received
    Comps send_comps, recv_comps;  // (what the peer receives, what this block receives)
    Buffer send_buf, recv_buf;
    HostBuffer send_host, recv_host;
  };

 public:
  // The faces of `grid`'s block on every split axis.  t.mpi (and t.nccl,
  // where set) holds the ranks of grid.decomposition (rank r of the
  // decomposition is rank r there).  Collective over those ranks.
  Halo(const ExecSpace& space, const LocalGrid& grid, const Transport& t, const HaloPattern& p = {})
      : space_(space), comm_(t.mpi), corners_(p.edges_and_corners) {
#ifdef KFLOW_HAVE_NCCL
    if constexpr (nccl_space<ExecSpace>) nccl_ = t.nccl;
#endif
    const auto& dec = grid.decomposition;
    auto comps = [&](int d, int side) {
      std::vector<int> c = p.across ? p.across(d, side) : std::vector<int>{};
      if (c.empty())
        for (int k = 0; k < p.components; ++k) c.push_back(k);
      Comps v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kflow::linalg::dist::halo_comps"),
              c.size());
      auto h = Kokkos::create_mirror_view(v);
      for (std::size_t k = 0; k < c.size(); ++k) h(k) = c[k];
      Kokkos::deep_copy(v, h);
      return v;
    };
    for (int d = 0; d < grid.local.dim; ++d) {
      if (!dec.split(d)) continue;
      for (int side = 0; side < 2; ++side) {
        const int peer = dec.neighbour(d, side);
        if (peer < 0) continue;
        Face f;
        f.axis = d;
        f.peer = peer;
        // A message is tagged by the face it fills: with two blocks on a
        // periodic axis both faces of a block talk to the same peer.
        f.recv_tag = 2 * d + side;
        f.send_tag = 2 * d + (1 - side);
        f.send = grid.owned_face(d, side);
        f.recv = grid.ghost_face(d, side);
        if (corners_)  // the ghost layers of the split axes exchanged before d
          for (int e = 0; e < d; ++e)
            if (dec.split(e)) {
              f.send.begin[e] = f.recv.begin[e] = 0;
              f.send.end[e] = f.recv.end[e] = grid.local.extent(e);
            }
        f.recv_comps = comps(d, side);
        f.send_comps = comps(d, 1 - side);
        const auto ns = std::size_t(f.send.size()) * f.send_comps.extent(0),
                   nr = std::size_t(f.recv.size()) * f.recv_comps.extent(0);
        f.send_buf = Buffer(Kokkos::view_alloc(space, "kflow::linalg::dist::halo_send"), ns);
        f.recv_buf = Buffer(Kokkos::view_alloc(space, "kflow::linalg::dist::halo_recv"), nr);
        if constexpr (std::is_same_v<HostBuffer, Buffer>) {
          f.send_host = f.send_buf;
          f.recv_host = f.recv_buf;
        } else if (!device_messages()) {
          f.send_host = HostBuffer("kflow::linalg::dist::halo_send_host", ns);
          f.recv_host = HostBuffer("kflow::linalg::dist::halo_recv_host", nr);
        }
        faces_.push_back(f);
      }
    }
    // NCCL connects two ranks on their first message, which takes far longer
    // than a message: connect here (collective, like the constructor), so
    // that seconds() times exchanges only.
    if (device_messages() && !faces_.empty()) {
      std::vector<Face*> fs;
      for (auto& x : faces_) fs.push_back(&x);
      nccl_messages(fs, false);
      space_.fence("kflow::linalg::dist::halo_connected");
    }
  }

  // Fills the ghost layers of f across every face that has a neighbour.
  // Returns when f is complete (the space is fenced).
  void exchange(const Field<Real, Dim, Mem>& f) {
    exchange(detail::FieldComponents<Field<Real, Dim, Mem>>{f});
  }
  // The same for components (ComponentsOnGrid, or any a(i, j, k, c)).
  template <class Access>
  void exchange(const Access& a) {
    run(a, ReplaceAll{}, false);
  }
  // Sends the ghost layers' components back into the owned layers of the
  // neighbours they belong to (the transpose of exchange()); a received
  // value does not replace component c of the stored cell (i, j, k) where
  // keep(i, j, k, c) (device-callable): the sender did not write it.
  template <class Access, class Keep>
  void reverse(const Access& a, const Keep& keep) {
    run(a, keep, true);
  }

  // Wall time spent in exchanges so far (each starts after the work queued
  // on the space before it).
  double seconds() const {
    return seconds_;
  }
  // Whether the buffers go device to device (NCCL).
  bool device_messages() const {
#ifdef KFLOW_HAVE_NCCL
    return nccl_ != nullptr;
#else
    return false;
#endif
  }
  // Number of faces this block exchanges.
  int faces() const {
    return int(faces_.size());
  }

 private:
  template <class Access, class Keep>
  void run(const Access& a, const Keep& keep, bool back) {
    if (faces_.empty()) return;
    space_.fence("kflow::linalg::dist::halo_start");
    const double t0 = MPI_Wtime();
    if (!corners_) {
      round(a, keep, back, -1);
    } else {
      const int dim = faces_.back().axis + 1;
      for (int n = 0; n < dim; ++n) round(a, keep, back, back ? dim - 1 - n : n);
    }
    seconds_ += MPI_Wtime() - t0;
  }

  // One round of messages: the faces of `axis` (every face: -1).  Forward:
  // owned layer -> the peer's ghost layer; back: ghost layer -> the peer's
  // owned layer (the same boxes and components, the roles swapped).
  template <class Access, class Keep>
  void round(const Access& a, const Keep& keep, bool back, int axis) {
    std::vector<Face*> fs;
    for (auto& x : faces_)
      if (axis < 0 || x.axis == axis) fs.push_back(&x);
    if (fs.empty()) return;
    if (device_messages()) {
      nccl_round(a, keep, back, fs);
      return;
    }
    std::vector<MPI_Request> recv(fs.size()), send(fs.size());
    for (std::size_t n = 0; n < fs.size(); ++n) {
      auto& x = *fs[n];
      auto& in = back ? x.send_host : x.recv_host;
      MPI_Irecv(in.data(), int(in.size() * sizeof(Real)), MPI_BYTE, x.peer, x.recv_tag, comm_,
                &recv[n]);
    }
    for (auto* x : fs)
      detail::copy_box(space_, "kflow::linalg::dist::halo_pack", a, keep, back ? x->recv : x->send,
                       back ? x->recv_comps : x->send_comps, back ? x->recv_buf : x->send_buf,
                       true);
    for (auto* x : fs)
      Kokkos::deep_copy(space_, back ? x->recv_host : x->send_host,
                        back ? x->recv_buf : x->send_buf);
    space_.fence("kflow::linalg::dist::halo_packed");
    for (std::size_t n = 0; n < fs.size(); ++n) {
      auto& x = *fs[n];
      auto& out = back ? x.recv_host : x.send_host;
      MPI_Isend(out.data(), int(out.size() * sizeof(Real)), MPI_BYTE, x.peer, x.send_tag, comm_,
                &send[n]);
    }
    MPI_Waitall(int(recv.size()), recv.data(), MPI_STATUSES_IGNORE);
    for (auto* x : fs) {
      Kokkos::deep_copy(space_, back ? x->send_buf : x->recv_buf,
                        back ? x->send_host : x->recv_host);
      detail::copy_box(space_, "kflow::linalg::dist::halo_unpack", a, keep,
                       back ? x->send : x->recv, back ? x->send_comps : x->recv_comps,
                       back ? x->send_buf : x->recv_buf, false);
    }
    MPI_Waitall(int(send.size()), send.data(), MPI_STATUSES_IGNORE);
    space_.fence("kflow::linalg::dist::halo_unpacked");
  }

  // The same round device to device: pack, the group of NCCL sends and
  // receives, unpack, in order on the space's stream.
  template <class Access, class Keep>
  void nccl_round(const Access& a, const Keep& keep, bool back, const std::vector<Face*>& fs) {
#ifdef KFLOW_HAVE_NCCL
    if constexpr (nccl_space<ExecSpace>) {
      for (auto* x : fs)
        detail::copy_box(space_, "kflow::linalg::dist::halo_pack", a, keep,
                         back ? x->recv : x->send, back ? x->recv_comps : x->send_comps,
                         back ? x->recv_buf : x->send_buf, true);
      nccl_messages(fs, back);
      for (auto* x : fs)
        detail::copy_box(space_, "kflow::linalg::dist::halo_unpack", a, keep,
                         back ? x->send : x->recv, back ? x->send_comps : x->recv_comps,
                         back ? x->send_buf : x->recv_buf, false);
      space_.fence("kflow::linalg::dist::halo_unpacked");
      return;
    }
#endif
    (void)a, (void)keep, (void)back, (void)fs;
  }

  // One group of NCCL receives and sends of the faces' buffers on the
  // space's stream.  NCCL matches the messages between two ranks in the
  // order they are posted (it has no tags), so each side posts them in the
  // order of their tags.
  void nccl_messages(std::vector<Face*> fs, bool back) {
#ifdef KFLOW_HAVE_NCCL
    if constexpr (nccl_space<ExecSpace>) {
      const cudaStream_t stream = space_.cuda_stream();
      detail::nccl_check(ncclGroupStart(), "ncclGroupStart");
      std::sort(fs.begin(), fs.end(), [](Face* p, Face* q) { return p->recv_tag < q->recv_tag; });
      for (auto* x : fs) {
        auto& in = back ? x->send_buf : x->recv_buf;
        detail::nccl_check(
            ncclRecv(in.data(), in.size() * sizeof(Real), ncclChar, x->peer, nccl_, stream),
            "ncclRecv");
      }
      std::sort(fs.begin(), fs.end(), [](Face* p, Face* q) { return p->send_tag < q->send_tag; });
      for (auto* x : fs) {
        auto& out = back ? x->recv_buf : x->send_buf;
        detail::nccl_check(
            ncclSend(out.data(), out.size() * sizeof(Real), ncclChar, x->peer, nccl_, stream),
            "ncclSend");
      }
      detail::nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    }
#endif
    (void)fs, (void)back;
  }

  ExecSpace space_;
  MPI_Comm comm_;
#ifdef KFLOW_HAVE_NCCL
  ncclComm_t nccl_ = nullptr;
#endif
  bool corners_;
  std::vector<Face> faces_;
  double seconds_ = 0;
};

}  // namespace kflow::linalg::dist
