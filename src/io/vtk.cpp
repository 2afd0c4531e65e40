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
#endif

namespace kflow::io {

#ifdef KFLOW_HAVE_VTK
bool vtk_available() {
  return true;
}

void write_vti(const std::string& path, const linalg::Grid& grid,
               const std::vector<HostField>& fields, double time) {
  vtkNew<vtkImageData> image;
  int points[3];
  double spacing[3];
  for (int d = 0; d < 3; ++d) {
    points[d] = d < grid.dim ? grid.cells[d] + 1 : 1;
    spacing[d] = d < grid.dim ? grid.spacing(d) : 1.0;
  }
  image->SetDimensions(points);
  image->SetSpacing(spacing);
  image->SetOrigin(grid.origin.data());
  const auto n = static_cast<vtkIdType>(grid.interior_cells());
  for (const auto& f : fields) {
    if (f.values.size() != static_cast<std::size_t>(n) * f.components)
      throw Error("write_vti: field '" + f.name + "' has " + std::to_string(f.values.size()) +
                  " values, the grid needs " + std::to_string(n * f.components));
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
  vtkNew<vtkXMLImageDataReader> r;
  if (!r->CanReadFile(path.c_str())) throw Error(path + ": not a readable VTK image data file");
  r->SetFileName(path.c_str());
  r->Update();
  vtkImageData* image = r->GetOutput();
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
std::vector<HostField> read_vti(const std::string& path, linalg::Grid*) {
  throw Error("cannot read " + path + ": this kflow was built without VTK");
}
#endif

}  // namespace kflow::io
