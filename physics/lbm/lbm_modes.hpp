#pragma once
// Where physics/lbm's populations are in a step: the streaming modes of the
// fused stream-collide step and the layouts of the stored post-collision
// populations between steps.

namespace kflow::lbm {

// The streaming modes of the fused stream-collide step (lbm_step.hpp), one
// lattice step for every cell:
//  two_grid:  f_i = src(x - c_i, i)   [wall: src(x, opp i) + term]; dst(x, i) = f*_i
//  aa_stream: f_i = a(x - c_i, opp i) [wall: a(x, i) + term];       a(x + c_i, i) = f*_i
//                                                                   [wall: a(x, opp i) = f*_i]
//  aa_local:  f_i = a(x, i)           [wall: a(x, i) + term];       a(x, opp i) = f*_i
// Each reads and adds the same values, so the schemes agree bit for bit.
enum class Mode { two_grid, aa_stream, aa_local };

// Layouts of the stored post-collision populations f*_i(x):
//  normal:  a(x, i)  (two-grid)
//  swapped: a(x, opp i)  (in-place, after a local step)
//  pushed:  a(x + c_i, i)  [wall: a(x, opp i)]  (in-place, after a stream step)
enum class Layout { normal, swapped, pushed };

}  // namespace kflow::lbm
