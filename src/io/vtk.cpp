#include "kflow/io/vtk.hpp"

#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "kflow/core/error.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/files.hpp"

#ifdef KFLOW_HAVE_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkSmartPointer.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLImageDataWriter.h>
#include <vtkXMLPImageDataReader.h>
#include <vtkXMLReader.h>
#endif

namespace kflow::io {

#ifdef KFLOW_HAVE_VTK
bool vtk_available() {
  return true;
}

void write_vti(const std::string& path, const linalg::Grid& grid,
               const std::vector<HostField>& fields, double time) {
  Block whole;
  for (int d = 0; d < 3; ++d) whole.cells[d] = d < grid.dim ? grid.cells[d] : 1;
  write_vti_piece(path, grid, whole, fields, time);
}

void write_vti_piece(const std::string& path, const linalg::Grid& grid, const Block& block,
                     const std::vector<HostField>& fields, double time) {
  vtkNew<vtkImageData> image;
  int extent[6];
  double spacing[3];
  vtkIdType cells = 1;
  for (int d = 0; d < 3; ++d) {
    const bool on = d < grid.dim;
    extent[2 * d] = on ? block.offset[d] : 0;
    extent[2 * d + 1] = on ? block.offset[d] + block.cells[d] : 0;
    spacing[d] = on ? grid.spacing(d) : 1.0;
    if (on) cells *= block.cells[d];
  }
  image->SetExtent(extent);
  image->SetSpacing(spacing);
  image->SetOrigin(grid.origin.data());
  const vtkIdType n = cells;
  for (const auto& f : fields) {
    if (f.values.size() != static_cast<std::size_t>(n) * f.components)
      throw Error("write_vti: field '" + f.name + "' has " + std::to_string(f.values.size()) +
                  " values, the block needs " + std::to_string(n * f.components));
    vtkNew<vtkDoubleArray> a;
    a->SetName(f.name.c_str());
    a->SetNumberOfComponents(f.components);
    a->SetNumberOfTuples(n);
    std::copy(f.values.begin(), f.values.end(), a->GetPointer(0));
    image->GetCellData()->AddArray(a);
    if (f.components == 3 && !image->GetCellData()->GetVectors())
      image->GetCellData()->SetVectors(a);
  }
  vtkNew<vtkDoubleArray> t;
  t->SetName("TimeValue");
  t->SetNumberOfTuples(1);
  t->SetValue(0, time);
  image->GetFieldData()->AddArray(t);

  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  vtkNew<vtkXMLImageDataWriter> w;
  w->SetFileName(tmp.c_str());
  w->SetInputData(image);
  w->SetDataModeToAppended();
  w->EncodeAppendedDataOff();
  w->SetCompressorTypeToZLib();
  if (w->Write() != 1 || w->GetErrorCode() != 0) {  // VTK reports a full disk only here
    std::remove(tmp.c_str());
    throw Error("VTK could not write " + path + " (disk full or directory missing?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + path);
  }
}

std::vector<HostField> read_vti(const std::string& path, linalg::Grid* grid) {
  const bool parallel = path.size() > 5 && path.compare(path.size() - 5, 5, ".pvti") == 0;
  vtkSmartPointer<vtkXMLReader> r;
  if (parallel)
    r = vtkSmartPointer<vtkXMLPImageDataReader>::New();
  else
    r = vtkSmartPointer<vtkXMLImageDataReader>::New();
  if (!r->CanReadFile(path.c_str())) throw Error(path + ": not a readable VTK image data file");
  r->SetFileName(path.c_str());
  r->Update();
  vtkImageData* image = vtkImageData::SafeDownCast(r->GetOutputDataObject(0));
  if (!image) throw Error(path + ": no image data in it");
  int dims[3];
  image->GetDimensions(dims);
  if (grid) {
    double sp[3], org[3];
    image->GetSpacing(sp);
    image->GetOrigin(org);
    grid->dim = dims[2] > 1 ? 3 : 2;
    for (int d = 0; d < 3; ++d) {
      grid->cells[d] = dims[d] > 1 ? dims[d] - 1 : 1;
      grid->length[d] = d < grid->dim ? sp[d] * grid->cells[d] : 1.0;
      grid->origin[d] = org[d];
    }
  }
  std::vector<HostField> out;
  vtkCellData* cd = image->GetCellData();
  for (int k = 0; k < cd->GetNumberOfArrays(); ++k) {
    vtkDataArray* a = cd->GetArray(k);
    HostField f;
    f.name = a->GetName();
    f.components = a->GetNumberOfComponents();
    f.values.resize(static_cast<std::size_t>(a->GetNumberOfTuples()) * f.components);
    for (vtkIdType t = 0; t < a->GetNumberOfTuples(); ++t)
      for (int c = 0; c < f.components; ++c)
        f.values[static_cast<std::size_t>(t) * f.components + c] = a->GetComponent(t, c);
    out.push_back(std::move(f));
  }
  return out;
}
#else
bool vtk_available() {
  return false;
}
void write_vti(const std::string& path, const linalg::Grid&, const std::vector<HostField>&,
               double) {
  throw Error("cannot write " + path + ": this kflow was built without VTK");
}
void write_vti_piece(const std::string& path, const linalg::Grid&, const Block&,
                     const std::vector<HostField>&, double) {
  throw Error("cannot write " + path + ": this kflow was built without VTK");
}
std::vector<HostField> read_vti(const std::string& path, linalg::Grid*) {
  throw Error("cannot read " + path + ": this kflow was built without VTK");
}
#endif

void write_pvti(const std::string& path, const linalg::Grid& grid,
                const std::vector<HostField>& fields, const std::vector<Block>& blocks,
                const std::vector<std::string>& files) {
  auto extent = [&](const Block& b) {
    std::ostringstream e;
    for (int d = 0; d < 3; ++d) {
      const bool on = d < grid.dim;
      e << (d ? " " : "") << (on ? b.offset[d] : 0) << " " << (on ? b.offset[d] + b.cells[d] : 0);
    }
    return e.str();
  };
  Block whole;
  for (int d = 0; d < 3; ++d) whole.cells[d] = d < grid.dim ? grid.cells[d] : 1;
  std::ostringstream s;
  s.precision(17);
  s << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" "
       "header_type=\"UInt64\">\n"
    << "  <PImageData WholeExtent=\"" << extent(whole) << "\" GhostLevel=\"0\" Origin=\""
    << grid.origin[0] << " " << grid.origin[1] << " " << grid.origin[2] << "\" Spacing=\""
    << grid.spacing(0) << " " << grid.spacing(1) << " " << (grid.dim > 2 ? grid.spacing(2) : 1.0)
    << "\" Direction=\"1 0 0 0 1 0 0 0 1\">\n";
  std::string vectors;
  for (const auto& f : fields)
    if (f.components == 3 && vectors.empty()) vectors = f.name;
  s << "    <PCellData" << (vectors.empty() ? "" : " Vectors=\"" + vectors + "\"") << ">\n";
  for (const auto& f : fields)
    s << "      <PDataArray type=\"Float64\" Name=\"" << f.name << "\" NumberOfComponents=\""
      << f.components << "\"/>\n";
  s << "    </PCellData>\n";
  for (std::size_t k = 0; k < blocks.size(); ++k)
    s << "    <Piece Extent=\"" << extent(blocks[k]) << "\" Source=\"" << files.at(k) << "\"/>\n";
  s << "  </PImageData>\n</VTKFile>\n";
  write_text_atomic(path, s.str());
}

}  // namespace kflow::io
