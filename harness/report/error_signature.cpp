#include "harness/report/error_signature.h"

#include <optional>
#include <regex>
#include <set>
#include <vector>

#include "harness/run/verdict.h"

namespace vf {

namespace {

std::string shortType(const std::string &t) {
  size_t dot = t.rfind('.');
  return dot == std::string::npos ? t : t.substr(dot + 1);
}

/// Undoes the escapes of a Python repr() string: \' \" \\ and \n (as a space: one line).
std::string unrepr(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char n = s[++i];
      out += n == 'n' ? ' ' : n == 't' ? ' ' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string firstLine(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find('\n', b);
  return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

} // namespace

InnerError peelError(const std::string &type, const std::string &message) {
  InnerError e{shortType(type), message, false};
  // At most a few layers: dynamo wraps once or twice.
  for (int layer = 0; layer < 4; ++layer) {
    // "... got AssertionError('...')" / "... raised exception ValueError("...")": the cause,
    // quoted as its repr() by dynamo. The last one on its line is the innermost.
    static const std::regex quoted(R"((?:got|raised exception) ([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))\((['"])(.*)\2\))");
    static const std::regex prefixed(R"(^\s*([A-Za-z_][\w.]*(?:Error|Exception)): ([^\n]*))");
    std::smatch m;
    bool found = false;
    std::string rest = e.message;
    std::string::const_iterator from = rest.begin();
    std::smatch last;
    while (std::regex_search(from, rest.cend(), m, quoted)) {
      last = m;
      found = true;
      from = m[0].second;
    }
    if (found) {
      e = {shortType(last[1].str()), unrepr(last[3].str()), true};
      continue;
    }
    // "InternalTorchDynamoError: RuntimeError: Dimension ...": the message names the cause.
    std::string line = firstLine(e.message);
    if (std::regex_search(line, m, prefixed)) {
      e = {shortType(m[1].str()), m[2].str(), true};
      continue;
    }
    break;
  }
  return e;
}

namespace {

/// A Python list of classes ("got [<class 'torch.Tensor'>, <class 'torch.SymInt'>, ...]") names
/// one class per argument: its length and order vary with the program, the classes in it with
/// the bug. Each becomes the sorted set of its distinct classes; a list cut off by the gist's
/// length keeps what it shows.
std::string classLists(const std::string &text) {
  static const std::regex cls(R"(<class '([^']+)'>)");
  std::string out;
  size_t pos = 0;
  for (size_t open; (open = text.find("[<class '", pos)) != std::string::npos;) {
    size_t close = text.find(']', open);
    std::string inside = text.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
    std::set<std::string> names;
    for (std::sregex_iterator it(inside.begin(), inside.end(), cls), end; it != end; ++it) names.insert((*it)[1].str());
    out += text.substr(pos, open - pos) + "[classes:";
    for (const auto &n : names) out += " " + n;
    out += "]";
    if (close == std::string::npos) return out;
    pos = close + 1;
  }
  return out + text.substr(pos);
}

} // namespace

std::string normaliseMessage(const std::string &msg) {
  std::string first = errorGist(msg);
  first = std::regex_replace(first, std::regex("0x[0-9a-fA-F]+"), "ADDR");
  first = classLists(first);
  // Generated functions and values: true_fn_12, body_fn_3, l_args_0_, cond_true_0, %23.
  first = std::regex_replace(first, std::regex(R"(\b(true|false|body|cond|combine|branch)_fn(_[0-9]+)?\b)"), "FN");
  first = std::regex_replace(first, std::regex(R"(\bl_[A-Za-z_]*?[0-9]+_\w*)"), "VAR");
  first = std::regex_replace(first, std::regex("[0-9]+"), "N");
  // Lists of sizes vary with the number of tensors involved, not with the bug.
  first = std::regex_replace(first, std::regex("N(, N)+"), "N, ...");
  // An assertion's wording names the values it saw: "got b_val=N" and "got a_val=N, b_val=N".
  first = std::regex_replace(first, std::regex(R"(\b\w+=N(, \w+=N)*)"), "VAR=N");
  return first.substr(0, 240);
}

namespace {

struct Frame {
  std::string path, func, source;
  bool userCode; // in dynamo's "from user code:" part
};

/// The innermost frame of the error: in the traceback proper for a plain error; for one dynamo
/// wrapped, whose own raise is dynamo's, in "from user code:" (where dynamo shows the cause's
/// frames at all). nullopt when there is none.
std::optional<Frame> innermostFrame(const std::string &traceback, bool wrapped) {
  static const std::regex fileLine(R"re(^\s*File "([^"]+)", line [0-9]+, in (\S+))re");
  std::vector<std::string> lines;
  for (size_t start = 0; start <= traceback.size();) {
    size_t end = traceback.find('\n', start);
    if (end == std::string::npos) end = traceback.size();
    lines.push_back(traceback.substr(start, end - start));
    start = end + 1;
  }
  std::optional<Frame> inner;
  bool userCode = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("from user code:") != std::string::npos) userCode = true;
    std::smatch m;
    if (!std::regex_search(lines[i], m, fileLine)) continue;
    Frame f{m[1].str(), m[2].str(), "", userCode};
    if (i + 1 < lines.size() && !std::regex_search(lines[i + 1], fileLine)) f.source = firstLine(lines[i + 1]);
    if (f.userCode == wrapped) inner = f;
  }
  return inner;
}

/// "path/relative/to/torch.py:function", or "" outside torch.
std::string torchFrameName(const Frame &f) {
  const size_t t = f.path.rfind("/torch/");
  return t == std::string::npos ? "" : f.path.substr(t + 7) + ":" + f.func;
}

/// A re-raise (`raise`, `raise e`, `raise e.with_traceback(None)`: fx's GraphModule.__call__
/// passes on what ATen raised; dynamo's compile_wrapper spreads `raise e.with_traceback(` over
/// lines) is not where the error comes from.
bool reraises(const Frame &f) {
  static const std::regex reraise(R"re(^raise(\s+[A-Za-z_][A-Za-z_0-9]*(\.with_traceback\(.*)?)?\s*(#.*)?$)re");
  return std::regex_match(f.source, reraise);
}

/// The torch frame `f` names where its line raises (not a re-raise): "" otherwise.
std::string raisedAt(const Frame &f) {
  const bool raises = f.source.rfind("raise", 0) == 0 || f.source.rfind("assert", 0) == 0;
  return raises && !reraises(f) ? torchFrameName(f) : "";
}

} // namespace

std::string raisingFrame(const std::string &traceback, bool wrapped) {
  const auto inner = innermostFrame(traceback, wrapped);
  return inner ? raisedAt(*inner) : "";
}

std::string errorSite(const std::string &traceback, bool wrapped) {
  const auto inner = innermostFrame(traceback, wrapped);
  if (!inner) return "";
  if (std::string at = raisedAt(*inner); !at.empty()) return at;
  // dynamo shows only the user code's frames of what it wrapped: the innermost is the call it
  // was tracing (cond's `_cond_op_wrapper` calling cond_op, say), not where the error came from.
  if (wrapped) return "hidden by dynamo";
  // Raised in C++. A call from torch's own Python (vmap's chunking, a rule's helper) names
  // that function; one from the program, or passed on by the fx GraphModule that runs a traced
  // body of it, is "the program": which of its ops met the bad input first is incidental.
  const std::string name = torchFrameName(*inner);
  if (name.empty() || reraises(*inner) || name.rfind("fx/graph_module.py:", 0) == 0) return "c++ from the program";
  return "c++ from " + name;
}

std::string errorSignature(const std::string &type, const std::string &message, const std::string &traceback) {
  InnerError e = peelError(type, message);
  std::string frame = raisingFrame(traceback, e.peeled);
  return e.type + "|" + normaliseMessage(e.message) + "|" + frame;
}

} // namespace vf
