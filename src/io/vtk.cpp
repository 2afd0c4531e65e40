#include "kflow/io/vtk.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <regex>
#include <sstream>

#include "kflow/io/fieldfile.hpp"
#include "kflow/io/files.hpp"
#include "kflow/model/error.hpp"

#ifdef KFLOW_HAVE_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkLogger.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkSmartPointer.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLImageDataWriter.h>
#include <vtkXMLPImageDataReader.h>
#include <vtkXMLReader.h>
#endif

namespace kflow::io {

#ifdef KFLOW_HAVE_VTK
namespace {

// VTK's messages, kept for kflow's own: VTK prints each error as a block of
// a dozen lines (source file, object addresses, the pipeline request) on
// stderr, twice over (its logger and its output window).  This window keeps
// the first line of each, without the addresses; a failed read or write
// puts them into its kflow::Error, a warning is printed as one line.
class MessageSink : public vtkOutputWindow {
 public:
  static MessageSink* New();
  vtkTypeMacro(MessageSink, vtkOutputWindow);
  void DisplayText(const char* t) override { keep(t); }
  void DisplayErrorText(const char* t) override { keep(t); }
  void DisplayWarningText(const char* t) override { keep(t); }
  void DisplayGenericWarningText(const char* t) override { keep(t); }
  void DisplayDebugText(const char*) override {}

  // What was kept since the last take(), "; "-separated, and forgets it.
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string s;
    s.swap(text_);
    return s;
  }

 private:
  void keep(const char* t) {
    std::istringstream in(t ? t : "");
    std::string line;
    while (std::getline(in, line)) {  // skip "ERROR: In file.cxx, line N"
      if (line.empty() || line.rfind("ERROR: In ", 0) == 0 || line.rfind("Warning: In ", 0) == 0 ||
          line.rfind("Generic Warning: In ", 0) == 0)
        continue;
      break;
    }
    static const std::regex address(" ?\\(0x[0-9a-fA-F]+\\)");
    line = std::regex_replace(line, address, "");
    // (the pipeline's echo of a failure its algorithm reported: no news)
    if (line.empty() || line.find("returned failure for request") != std::string::npos) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (text_.find(line) != std::string::npos) return;  // once each
    text_ += (text_.empty() ? "" : "; ") + line;
  }
  std::mutex mutex_;
  std::string text_;
};
vtkStandardNewMacro(MessageSink);

// The sink, installed once (and VTK's logger kept off stderr).
MessageSink& vtk_messages() {
  static MessageSink* sink = [] {
    vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
    auto* s = MessageSink::New();
    vtkOutputWindow::SetInstance(s);
    return s;
  }();
  return *sink;
}

// VTK's words for a failure: its error code's name (where it set one), then
// what it said.
std::string vtk_said(unsigned long code) {
  std::string said = vtk_messages().take();
  if (code != 0)
    said =
        std::string(vtkErrorCode::GetStringFromErrorCode(code)) + (said.empty() ? "" : "; ") + said;
  return said.empty() ? "" : " (VTK: " + said + ")";
}

// Warnings of a read or write that succeeded: one line on stderr.
void print_warnings(const std::string& path) {
  const std::string said = vtk_messages().take();
  if (!said.empty())
    std::cerr << "kflow: VTK warned while reading or writing " << path << ": " << said << "\n";
}

}  // namespace

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
  vtk_messages().take();                            // (anything earlier is not this write's)
  if (w->Write() != 1 || w->GetErrorCode() != 0) {  // VTK reports a full disk only here
    const std::string said = vtk_said(w->GetErrorCode());
    std::remove(tmp.c_str());
    throw Error("VTK could not write " + path + " (disk full or directory missing?)" + said);
  }
  print_warnings(path);
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
  vtk_messages();  // (before VTK's first word)
  if (!r->CanReadFile(path.c_str())) throw Error(path + ": not a readable VTK image data file");
  r->SetFileName(path.c_str());
  vtk_messages().take();
  r->Update();
  if (r->GetErrorCode() != 0)
    throw Error(path + ": VTK could not read it" + vtk_said(r->GetErrorCode()));
  vtkImageData* image = vtkImageData::SafeDownCast(r->GetOutputDataObject(0));
  if (!image) throw Error(path + ": no image data in it" + vtk_said(0));
  print_warnings(path);
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
