#include "harness/backends/torch/py_writer.h"

namespace vf {

PyWriter &PyWriter::line(std::string_view text) {
  if (!text.empty()) out_.append(static_cast<size_t>(depth_) * 4, ' ').append(text);
  out_ += '\n';
  return *this;
}

PyWriter &PyWriter::lines(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return *this;
}

PyWriter &PyWriter::blank(int n) {
  out_.append(static_cast<size_t>(n), '\n');
  return *this;
}

PyWriter &PyWriter::block(std::string_view header, const std::function<void()> &body) {
  line(header);
  auto scope = indent();
  body();
  return *this;
}

std::string pyJoin(const std::vector<std::string> &items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}

std::string pyTuple(const std::vector<std::string> &items) {
  return "(" + pyJoin(items) + (items.size() == 1 ? ",)" : ")");
}

std::string pyCall(std::string_view fn, const std::vector<std::string> &args) {
  return std::string(fn) + "(" + pyJoin(args) + ")";
}

std::string pyUnpack(const std::vector<std::string> &names) { return pyJoin(names) + (names.size() == 1 ? "," : ""); }

std::string pyString(const std::string &s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out + "\"";
}

} // namespace vf
