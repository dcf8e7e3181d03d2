#pragma once
/// A small structured writer of Python source: lines at the current indentation, indentation
/// scopes, and the expressions emitters compose (tuples, calls). Emitters own their layout
/// (YARPGen's habit): a callee wraps its own expression and writes its own lines; the caller
/// only opens the scope it writes into. Nothing counts spaces by hand.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace vf {

class PyWriter {
public:
  /// Closes the scope it was made by (PyWriter::indent) when it goes out of scope.
  class Scope {
  public:
    explicit Scope(PyWriter &w) : w_(&w) { ++w_->depth_; }
    Scope(Scope &&o) noexcept : w_(o.w_) { o.w_ = nullptr; }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
    ~Scope() {
      if (w_) --w_->depth_;
    }

  private:
    PyWriter *w_;
  };

  /// One line at the current indentation; an empty one stays empty (no trailing spaces).
  PyWriter &line(std::string_view text);
  /// Each line of `text` (a '\n'-separated block, a trailing '\n' ending its last line) at the
  /// current indentation: an embedded static Python file, or a multi-line expression.
  PyWriter &lines(std::string_view text);
  /// `n` empty lines.
  PyWriter &blank(int n = 1);
  /// Indents what is written until the returned scope ends: `auto body = w.indent();`.
  [[nodiscard]] Scope indent() { return Scope(*this); }
  /// `header` (e.g. "def f(x):"), then what `body` writes one level deeper.
  PyWriter &block(std::string_view header, const std::function<void()> &body);
  /// The current indentation level (4 spaces each).
  int depth() const { return depth_; }
  /// What has been written.
  const std::string &str() const { return out_; }

private:
  std::string out_;
  int depth_ = 0;
};

/// `a, b, c` (nothing for no items).
std::string pyJoin(const std::vector<std::string> &items);
/// A tuple display: `()`, `(a,)`, `(a, b)`.
std::string pyTuple(const std::vector<std::string> &items);
/// A call: `fn(a, b)`.
std::string pyCall(std::string_view fn, const std::vector<std::string> &args);
/// An assignment target that unpacks a tuple: `a,` for one name, `a, b` for more.
std::string pyUnpack(const std::vector<std::string> &names);
/// A Python string literal (quotes, backslashes and newlines escaped).
std::string pyString(const std::string &s);
/// `True` or `False`.
inline std::string pyBool(bool b) { return b ? "True" : "False"; }

} // namespace vf
