#pragma once
/// The readable text format of programs and cases (see docs/text-format.md). Printing then
/// parsing gives back the same program.
#include <stdexcept>
#include <string>

#include "ir/program.h"

namespace vf {

/// A syntax error, with the 1-based line and column where it was found.
struct ParseError : std::runtime_error {
  int line, col;
  ParseError(int line, int col, const std::string &msg)
      : std::runtime_error(msg), line(line), col(col) {}
};

std::string printProgram(const Program &p);
/// A case: its vmap levels and data seed, then the program.
std::string printCase(const Case &c);

/// Parses a program (`func(...) { ... }`); throws ParseError.
Program parseProgram(const std::string &text);
/// Parses a case file; a file with no `vmap` line gets one level of size 2 batching every
/// input at dim 0. Throws ParseError.
Case parseCase(const std::string &text);

} // namespace vf
