#pragma once
// Halo exchange of a grid field between the blocks of a decomposition: the
// ghost layers beyond each face of a block receive the owned layers of the
// neighbour across it, periodic wrap included.  Faces only (a 5- or 7-point
// stencil needs no edges or corners), on the axes that are split across
// ranks; an axis one rank holds whole is the caller's to fill, exactly as a
// single-rank run does.
//
// Each face is packed into a contiguous buffer by a kernel on the field's
// execution space, staged through host memory (the MPI libraries kflow
// meets are not CUDA-aware), sent with MPI_Isend and received with
// MPI_Irecv, then unpacked by a kernel.  Needs MPI (include only where
// KFLOW_HAVE_MPI is defined).

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <vector>

#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/linalg/field.hpp"

namespace kflow::linalg::dist {

namespace detail {

// Copies the box of f starting at (bi, bj, bk), ni x nj x ..., into buf
// (pack) or buf into the box (unpack), i fastest.  A functor: nvcc refuses
// an extended lambda that first captures inside `if constexpr`.
template <class View, class Buf>
struct CopyBox {
  View f;
  Buf buf;
  int bi, bj, bk, ni, nj;
  bool pack;
  KOKKOS_INLINE_FUNCTION void operator()(int n) const {
    const int i = bi + n % ni, j = bj + (n / ni) % nj;
    if constexpr (View::rank == 2) {
      if (pack)
        buf(n) = f(i, j);
      else
        f(i, j) = buf(n);
    } else {
      const int k = bk + n / (ni * nj);
      if (pack)
        buf(n) = f(i, j, k);
      else
        f(i, j, k) = buf(n);
    }
  }
};

template <class ExecSpace, class View, class Buf>
void copy_box(const ExecSpace& space, const char* label, const View& f, const IndexRange& r,
              const Buf& buf, bool pack) {
  Kokkos::parallel_for(label, RangePolicy<ExecSpace>(space, 0, int(r.size())),
                       CopyBox<View, Buf>{f, buf, r.begin[0], r.begin[1], r.begin[2],
                                          r.end[0] - r.begin[0], r.end[1] - r.begin[1], pack});
}

}  // namespace detail

template <class ExecSpace, class Real, int Dim>
class Halo {
  using Mem = typename ExecSpace::memory_space;
  using Buffer = Kokkos::View<Real*, Mem>;
  using HostBuffer = typename Buffer::host_mirror_type;

  struct Face {
    int peer, send_tag, recv_tag;
    IndexRange send, recv;
    Buffer send_buf, recv_buf;
    HostBuffer send_host, recv_host;
  };

 public:
  // The faces of `grid`'s block on every split axis.  comm holds the ranks of
  // grid.decomposition (rank r of the decomposition is rank r of comm).
  Halo(const ExecSpace& space, const LocalGrid& grid, MPI_Comm comm) : space_(space), comm_(comm) {
    const auto& dec = grid.decomposition;
    for (int d = 0; d < grid.local.dim; ++d) {
      if (!dec.split(d)) continue;
      for (int side = 0; side < 2; ++side) {
        const int peer = dec.neighbour(d, side);
        if (peer < 0) continue;
        Face f;
        f.peer = peer;
        // A message is tagged by the face it fills: with two blocks on a
        // periodic axis both faces of a block talk to the same peer.
        f.recv_tag = 2 * d + side;
        f.send_tag = 2 * d + (1 - side);
        f.send = grid.owned_face(d, side);
        f.recv = grid.ghost_face(d, side);
        f.send_buf =
            Buffer(Kokkos::view_alloc(space, "kflow::linalg::dist::halo_send"), f.send.size());
        f.recv_buf =
            Buffer(Kokkos::view_alloc(space, "kflow::linalg::dist::halo_recv"), f.recv.size());
        f.send_host = Kokkos::create_mirror_view(f.send_buf);
        f.recv_host = Kokkos::create_mirror_view(f.recv_buf);
        faces_.push_back(f);
      }
    }
  }

  // Fills the ghost layers of f across every face that has a neighbour.
  // Returns when f is complete (the space is fenced).
  void exchange(const Field<Real, Dim, Mem>& f) {
    if (faces_.empty()) return;
    const double t0 = MPI_Wtime();
    std::vector<MPI_Request> recv(faces_.size()), send(faces_.size());
    for (std::size_t n = 0; n < faces_.size(); ++n) {
      auto& x = faces_[n];
      MPI_Irecv(x.recv_host.data(), int(x.recv_host.size() * sizeof(Real)), MPI_BYTE, x.peer,
                x.recv_tag, comm_, &recv[n]);
    }
    for (auto& x : faces_)
      detail::copy_box(space_, "kflow::linalg::dist::halo_pack", f, x.send, x.send_buf, true);
    for (auto& x : faces_) Kokkos::deep_copy(space_, x.send_host, x.send_buf);
    space_.fence("kflow::linalg::dist::halo_packed");
    for (std::size_t n = 0; n < faces_.size(); ++n) {
      auto& x = faces_[n];
      MPI_Isend(x.send_host.data(), int(x.send_host.size() * sizeof(Real)), MPI_BYTE, x.peer,
                x.send_tag, comm_, &send[n]);
    }
    MPI_Waitall(int(recv.size()), recv.data(), MPI_STATUSES_IGNORE);
    for (auto& x : faces_) {
      Kokkos::deep_copy(space_, x.recv_buf, x.recv_host);
      detail::copy_box(space_, "kflow::linalg::dist::halo_unpack", f, x.recv, x.recv_buf, false);
    }
    MPI_Waitall(int(send.size()), send.data(), MPI_STATUSES_IGNORE);
    space_.fence("kflow::linalg::dist::halo_unpacked");
    seconds_ += MPI_Wtime() - t0;
  }

  // Wall time spent in exchange() so far.
  double seconds() const { return seconds_; }
  // Number of faces this block exchanges.
  int faces() const { return int(faces_.size()); }

 private:
  ExecSpace space_;
  MPI_Comm comm_;
  std::vector<Face> faces_;
  double seconds_ = 0;
};

}  // namespace kflow::linalg::dist
