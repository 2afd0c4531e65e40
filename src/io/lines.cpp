#include "kflow/io/lines.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kflow/io/fieldfile.hpp"
#include "kflow/model/error.hpp"

namespace kflow::io {

std::vector<double> sample_line(const linalg::Grid& g, const HostField& f, const LineSpec& line) {
  std::vector<double> out(line.points);
  const int nx = g.cells[0], ny = g.dim > 1 ? g.cells[1] : 1;
  for (int p = 0; p < line.points; ++p) {
    const double s = double(p) / (line.points - 1);
    int i0[3] = {0, 0, 0}, i1[3] = {0, 0, 0};
    double w[3] = {0, 0, 0};
    for (int d = 0; d < g.dim; ++d) {
      const double x = line.from[d] + s * (line.to[d] - line.from[d]);
      double c = (x - g.origin[d]) / g.spacing(d) - 0.5;  // in cell-centre index units
      c = std::clamp(c, 0.0, double(g.cells[d] - 1));
      i0[d] = std::min(static_cast<int>(c), g.cells[d] - 1);
      i1[d] = std::min(i0[d] + 1, g.cells[d] - 1);
      w[d] = c - i0[d];
    }
    double v = 0;
    for (int corner = 0; corner < 8; ++corner) {
      double wt = 1;
      int idx[3];
      for (int d = 0; d < 3; ++d) {
        const bool hi = (corner >> d) & 1;
        if (d >= g.dim && hi) wt = 0;
        idx[d] = hi ? i1[d] : i0[d];
        wt *= d >= g.dim ? 1.0 : (hi ? w[d] : 1 - w[d]);
      }
      if (wt == 0) continue;
      const std::size_t cell = idx[0] + std::size_t(nx) * (idx[1] + std::size_t(ny) * idx[2]);
      v += wt * f.values[cell * f.components];
    }
    out[p] = v;
  }
  return out;
}

void append_line_csv(const std::string& path, const LineSpec& l, double t,
                     const std::vector<double>& v) {
  const bool fresh = !std::filesystem::exists(path);
  const auto size = fresh ? 0 : std::filesystem::file_size(path);
  std::ofstream csv(path, std::ios::app);
  if (fresh) csv << "time,s,x,y,z," << l.field << "\n";
  for (int p = 0; p < l.points; ++p) {
    const double s = double(p) / (l.points - 1);
    csv << exact(t) << "," << exact(s);
    for (int d = 0; d < 3; ++d) csv << "," << exact(l.from[d] + s * (l.to[d] - l.from[d]));
    csv << "," << exact(v[p]) << "\n";
  }
  csv.flush();
  if (!csv) {  // keep the file as it was: complete rows only
    csv.close();
    std::error_code ec;
    std::filesystem::resize_file(path, size, ec);
    throw Error("writing " + path + " failed (disk full?)");
  }
}

}  // namespace kflow::io
