#include "ir/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace vf {

// ---- printing --------------------------------------------------------------------------------

namespace {

std::string defText(const Def &d) { return "%" + std::to_string(d.id) + ": " + typeToString(d.type); }

std::string idList(const std::vector<ValueId> &ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", %" : "%") + std::to_string(ids[i]);
  return s;
}

std::string defList(const std::vector<Def> &defs) {
  std::string s;
  for (size_t i = 0; i < defs.size(); ++i) s += (i ? ", " : "") + defText(defs[i]);
  return s;
}

void printBlockBody(std::ostream &os, const Block &b, int indent, const char *closer);

void printStmt(std::ostream &os, const Stmt &s, int indent) {
  std::string pad(indent, ' ');
  os << pad << defList(s.results) << " = " << s.op << "(" << idList(s.args) << ")";
  if (!s.attrs.items.empty()) {
    os << " {";
    for (size_t i = 0; i < s.attrs.items.size(); ++i)
      os << (i ? ", " : "") << s.attrs.items[i].first << "=" << attrToText(s.attrs.items[i].second);
    os << "}";
  }
  if (!s.regions.empty()) {
    os << " [\n";
    for (const auto &r : s.regions) {
      os << pad << "  (" << defList(r.params) << ") {\n";
      printBlockBody(os, r, indent + 4, "yield");
      os << pad << "  }\n";
    }
    os << pad << "]";
  }
  os << "\n";
}

void printBlockBody(std::ostream &os, const Block &b, int indent, const char *closer) {
  for (const auto &s : b.stmts) printStmt(os, s, indent);
  os << std::string(indent, ' ') << closer << " " << idList(b.yields) << "\n";
}

std::string optDim(const std::optional<int64_t> &d) { return d ? std::to_string(*d) : "None"; }

} // namespace

std::string printProgram(const Program &p) {
  std::ostringstream os;
  os << "func(" << defList(p.body.params) << ") {\n";
  printBlockBody(os, p.body, 2, "return");
  os << "}\n";
  return os.str();
}

std::string printCase(const Case &c) {
  std::ostringstream os;
  for (const auto &l : c.spec.levels) {
    os << "vmap size=" << l.size << " in_dims=(";
    for (size_t i = 0; i < l.in_dims.size(); ++i) os << (i ? "," : "") << optDim(l.in_dims[i]);
    os << ") out_dims=(";
    for (size_t i = 0; i < l.out_dims.size(); ++i) os << (i ? "," : "") << l.out_dims[i];
    os << ")";
    if (l.chunk_size) os << " chunk_size=" << *l.chunk_size;
    if (l.randomness != "error") os << " randomness=" << l.randomness;
    os << "\n";
  }
  if (!c.spec.layouts.empty()) {
    os << "layouts (";
    for (size_t i = 0; i < c.spec.layouts.size(); ++i) os << (i ? ", " : "") << layoutToString(c.spec.layouts[i]);
    os << ")\n";
  }
  os << "data_seed " << c.spec.data_seed << "\n";
  os << printProgram(c.program);
  return os.str();
}

// ---- parsing ---------------------------------------------------------------------------------

namespace {

enum class Tok { Value, Ident, Number, Punct, End };

struct Token {
  Tok kind;
  std::string text;
  int line, col;
};

/// True when c is one of the characters of `set` (never for '\0').
bool oneOf(char c, const char *set) {
  for (; *set; ++set)
    if (c == *set) return true;
  return false;
}

class Lexer {
public:
  explicit Lexer(const std::string &s) : s_(s) {}

  Token next() {
    skip();
    Token t{Tok::End, "", line_, col_};
    if (i_ >= s_.size()) return t;
    char c = s_[i_];
    if (c == '%') {
      advance();
      t.kind = Tok::Value;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) t.text += advance();
      if (t.text.empty()) throw ParseError(t.line, t.col, "expected a value number after '%'");
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      t.kind = Tok::Number;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || oneOf(s_[i_], "+-."))) {
        // A sign is only part of a number at its start or right after an exponent.
        if ((s_[i_] == '-' || s_[i_] == '+') && !t.text.empty() && t.text.back() != 'e' && t.text.back() != 'E') break;
        t.text += advance();
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Tok::Ident;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) t.text += advance();
    } else if (oneOf(c, "(){}[],:=")) {
      t.kind = Tok::Punct;
      t.text = advance();
    } else {
      std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "\\x" + hex(c);
      throw ParseError(t.line, t.col, "unexpected character '" + shown + "'");
    }
    return t;
  }

  bool atNewlineBefore() const { return sawNewline_; }

private:
  static std::string hex(char c) {
    const char *d = "0123456789abcdef";
    auto u = static_cast<unsigned char>(c);
    return {d[u >> 4], d[u & 15]};
  }
  char advance() {
    char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  void skip() {
    sawNewline_ = false;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        if (c == '\n') sawNewline_ = true;
        advance();
      } else {
        break;
      }
    }
  }
  const std::string &s_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
  bool sawNewline_ = false;
};

class Parser {
public:
  explicit Parser(const std::string &s) : lex_(s) { cur_ = lex_.next(); }

  Case parseCase() {
    Case c;
    bool sawSeed = false;
    while (cur_.kind == Tok::Ident && (cur_.text == "vmap" || cur_.text == "data_seed" || cur_.text == "layouts")) {
      if (cur_.text == "vmap") {
        take();
        c.spec.levels.push_back(parseLevel());
      } else if (cur_.text == "layouts") {
        take();
        c.spec.layouts = parseLayouts();
      } else {
        take();
        c.spec.data_seed = parseSeed();
        sawSeed = true;
      }
    }
    c.program = parseProgram();
    (void)sawSeed;
    if (c.spec.levels.empty()) {
      VmapLevel l;
      l.size = 2;
      l.in_dims.assign(c.program.body.params.size(), 0);
      l.out_dims.assign(c.program.body.yields.size(), 0);
      c.spec.levels.push_back(l);
    }
    return c;
  }

  Program parseProgram() {
    expectIdent("func");
    Program p;
    expect("(");
    p.body.params = parseDefs(")");
    expect(")");
    expect("{");
    parseBlockBody(p.body, "return");
    expect("}");
    if (cur_.kind != Tok::End) fail("expected end of input after the program");
    return p;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    std::string got = cur_.kind == Tok::End ? "end of input" : "'" + cur_.text + "'";
    throw ParseError(cur_.line, cur_.col, what + ", got " + got);
  }
  Token take() {
    Token t = cur_;
    cur_ = lex_.next();
    return t;
  }
  bool isPunct(const char *p) const { return cur_.kind == Tok::Punct && cur_.text == p; }
  void expect(const char *p) {
    if (!isPunct(p)) fail(std::string("expected '") + p + "'");
    take();
  }
  void expectIdent(const char *w) {
    if (cur_.kind != Tok::Ident || cur_.text != w) fail(std::string("expected '") + w + "'");
    take();
  }

  int64_t parseInt(const char *what) {
    if (cur_.kind != Tok::Number) fail(std::string("expected ") + what);
    int64_t v = 0;
    const std::string &t = cur_.text;
    const char *b = t.data() + (t[0] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) fail(std::string("expected ") + what);
    take();
    return v;
  }

  /// Data seeds are unsigned 64-bit: a negative one would print back as another number.
  uint64_t parseSeed() {
    const char *what = "expected a data seed (an integer in [0, 2^64))";
    if (cur_.kind != Tok::Number || cur_.text[0] == '-') fail(what);
    uint64_t v = 0;
    const std::string &t = cur_.text;
    const char *b = t.data() + (t[0] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) fail(what);
    take();
    return v;
  }

  ValueId parseValue() {
    if (cur_.kind != Tok::Value) fail("expected a value like %3");
    ValueId v = 0;
    auto [p, ec] = std::from_chars(cur_.text.data(), cur_.text.data() + cur_.text.size(), v);
    if (ec != std::errc()) fail("value number out of range");
    take();
    return v;
  }

  Type parseType() {
    if (cur_.kind != Tok::Ident) fail("expected a dtype (f32, f64, f16, bf16, i64, i32, bool)");
    auto d = parseDType(cur_.text);
    if (!d) fail("expected a dtype (f32, f64, f16, bf16, i64, i32, bool)");
    take();
    Type t{*d, {}};
    expect("[");
    while (!isPunct("]")) {
      int64_t n = parseInt("a dimension size");
      if (n < 0 || n > (int64_t{1} << 40)) throw ParseError(cur_.line, cur_.col, "dimension size out of range");
      t.shape.push_back(n);
      if (!isPunct("]")) expect(",");
    }
    expect("]");
    return t;
  }

  Def parseDef() {
    Def d;
    d.id = parseValue();
    expect(":");
    d.type = parseType();
    return d;
  }

  std::vector<Def> parseDefs(const char *closer) {
    std::vector<Def> out;
    while (!isPunct(closer)) {
      out.push_back(parseDef());
      if (!isPunct(closer)) expect(",");
    }
    return out;
  }

  std::vector<ValueId> parseIdsUntilLineEnd() {
    std::vector<ValueId> ids;
    if (cur_.kind != Tok::Value) return ids;
    ids.push_back(parseValue());
    while (isPunct(",")) {
      take();
      ids.push_back(parseValue());
    }
    return ids;
  }

  Attr parseAttrValue() {
    if (isPunct("[")) {
      take();
      IntList l;
      while (!isPunct("]")) {
        if (cur_.kind == Tok::Ident && cur_.text == "None") {
          take();
          l.push_back(kNoneDim);
        } else {
          l.push_back(parseInt("an integer or None"));
        }
        if (!isPunct("]")) expect(",");
      }
      take();
      return l;
    }
    if (cur_.kind == Tok::Ident && (cur_.text == "true" || cur_.text == "false")) return take().text == "true";
    if (cur_.kind == Tok::Ident && (cur_.text == "nan" || cur_.text == "inf")) {
      return take().text == "nan" ? std::nan("") : HUGE_VAL;
    }
    if (cur_.kind != Tok::Number) fail("expected an attribute value");
    const std::string t = cur_.text;
    if (t == "-inf") {
      take();
      return -HUGE_VAL;
    }
    if (t.find_first_of(".eE") != std::string::npos || t.find("inf") != std::string::npos || t.find("nan") != std::string::npos) {
      double d = 0;
      const char *b = t.data() + (t[0] == '+' ? 1 : 0);
      auto [p, ec] = std::from_chars(b, t.data() + t.size(), d);
      if (ec != std::errc() || p != t.data() + t.size()) fail("expected a number");
      take();
      return d;
    }
    return parseInt("an integer");
  }

  Stmt parseStmt() {
    Stmt s;
    s.results.push_back(parseDef());
    while (isPunct(",")) {
      take();
      s.results.push_back(parseDef());
    }
    expect("=");
    if (cur_.kind != Tok::Ident) fail("expected an op or construct name");
    s.op = take().text;
    expect("(");
    if (!isPunct(")")) s.args = parseIdsUntilLineEnd();
    expect(")");
    if (isPunct("{")) {
      take();
      while (!isPunct("}")) {
        if (cur_.kind != Tok::Ident) fail("expected an attribute name");
        std::string name = take().text;
        expect("=");
        s.attrs.items.emplace_back(name, parseAttrValue());
        if (!isPunct("}")) expect(",");
      }
      take();
    }
    if (isPunct("[")) {
      take();
      while (!isPunct("]")) {
        Block r;
        expect("(");
        r.params = parseDefs(")");
        expect(")");
        expect("{");
        parseBlockBody(r, "yield");
        expect("}");
        s.regions.push_back(std::move(r));
      }
      take();
    }
    return s;
  }

  void parseBlockBody(Block &b, const char *closer) {
    if (++depth_ > 200) fail("regions nested too deeply");
    while (!(cur_.kind == Tok::Ident && cur_.text == closer)) {
      if (cur_.kind != Tok::Value) fail(std::string("expected a statement or '") + closer + "'");
      b.stmts.push_back(parseStmt());
    }
    take();
    b.yields = parseIdsUntilLineEnd();
    --depth_;
  }

  VmapLevel parseLevel() {
    VmapLevel l;
    bool sawSize = false;
    while (cur_.kind == Tok::Ident && !lex_.atNewlineBefore()) {
      Token key = take();
      expect("=");
      if (key.text == "size") {
        l.size = parseInt("a batch size");
        if (l.size < 0) throw ParseError(key.line, key.col, "batch size must be >= 0");
        sawSize = true;
      } else if (key.text == "chunk_size") {
        l.chunk_size = parseInt("a chunk size");
        if (*l.chunk_size < 1) throw ParseError(key.line, key.col, "chunk_size must be >= 1");
      } else if (key.text == "randomness") {
        if (cur_.kind != Tok::Ident) fail("expected a randomness (error, different, same)");
        Token v = take();
        bool known = false;
        for (const auto &n : randomnessNames()) known |= n == v.text;
        if (!known) throw ParseError(v.line, v.col, "unknown randomness '" + v.text + "' (error, different, same)");
        l.randomness = v.text;
      } else if (key.text == "in_dims" || key.text == "out_dims") {
        expect("(");
        while (!isPunct(")")) {
          if (key.text == "in_dims" && cur_.kind == Tok::Ident && cur_.text == "None") {
            take();
            l.in_dims.push_back(std::nullopt);
          } else {
            int64_t d = parseInt(key.text == "in_dims" ? "a dim or None" : "a dim");
            if (key.text == "in_dims") l.in_dims.push_back(d);
            else l.out_dims.push_back(d);
          }
          if (!isPunct(")")) expect(",");
        }
        take();
      } else {
        throw ParseError(key.line, key.col, "unknown vmap field '" + key.text + "' (size, in_dims, out_dims, chunk_size, randomness)");
      }
      if (cur_.kind == Tok::Ident &&
          (cur_.text == "vmap" || cur_.text == "data_seed" || cur_.text == "func" || cur_.text == "layouts"))
        break;
    }
    if (!sawSize) fail("expected size=N in a vmap line");
    return l;
  }

  /// `(contiguous, transposed:1, ...)`: one layout per input.
  std::vector<Layout> parseLayouts() {
    std::vector<Layout> out;
    expect("(");
    while (!isPunct(")")) {
      if (cur_.kind != Tok::Ident) fail("expected a layout (contiguous, transposed:D, expanded:D, strided:D, offset)");
      Token k = take();
      std::optional<int64_t> dim;
      if (isPunct(":")) {
        take();
        dim = parseInt("a dim");
        if (*dim < 0) throw ParseError(k.line, k.col, "a layout's dim must be >= 0");
      }
      auto l = parseLayout(k.text, dim);
      if (!l)
        throw ParseError(k.line, k.col, "bad layout '" + k.text + (dim ? ":" + std::to_string(*dim) : "") +
                                            "' (contiguous, transposed:D, expanded:D, strided:D, offset)");
      out.push_back(*l);
      if (!isPunct(")")) expect(",");
    }
    take();
    return out;
  }

  Lexer lex_;
  Token cur_;
  int depth_ = 0;
};

} // namespace

Program parseProgram(const std::string &text) { return Parser(text).parseProgram(); }
Case parseCase(const std::string &text) { return Parser(text).parseCase(); }

} // namespace vf
