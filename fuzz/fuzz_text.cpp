// libFuzzer target for the case text format (ir/text.cpp): any input either fails with a
// ParseError (file, line, column) or parses to a case that prints and parses back to the same
// case, and that the validator judges without crashing. Anything else aborts.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/text.h"
#include "ir/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  vf::Case c;
  try {
    c = vf::parseCase(text);
  } catch (const vf::ParseError &e) {
    if (e.line < 1 || e.col < 1) {
      std::fprintf(stderr, "==vmapfuzz== ERROR: parse error without a position: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  (void)vf::validateCase(c);
  std::string printed = vf::printCase(c);
  vf::Case again;
  try {
    again = vf::parseCase(printed);
  } catch (const vf::ParseError &e) {
    std::fprintf(stderr, "==vmapfuzz== ERROR: printed case does not parse (%d:%d: %s):\n%s", e.line, e.col, e.what(), printed.c_str());
    std::abort();
  }
  if (vf::printCase(again) != printed) {
    std::fprintf(stderr, "==vmapfuzz== ERROR: print(parse(print(c))) != print(c):\n%s\n---\n%s", printed.c_str(),
                 vf::printCase(again).c_str());
    std::abort();
  }
  return 0;
}
