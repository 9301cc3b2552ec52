// diagnostic.cpp — how the generator tells the user about a mistake in a spec.
#include "source/source.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace lgc {

void error_at(const SourceLoc &loc, const std::string &msg) { throw SpecError(loc, msg); }

static std::string position(const SourceLoc &loc) {
  std::ostringstream s;
  s << loc.file;
  if (loc.line > 0) s << ':' << loc.line << ':' << loc.col;
  return s.str();
}

// The 1-based `line` of `text`, or "" if there is none.
static std::string line_of(const std::string &text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i)
    if (i == line) return s;
  return "";
}

void print_error(const SpecError &e, const std::string &source_text) {
  std::cerr << position(e.loc) << ": error: " << e.what() << '\n';
  if (e.loc.line <= 0) return;
  std::string src = line_of(source_text, e.loc.line);
  if (src.empty() || src.size() > 200) return;
  // The caret goes under the column, counted in code points; tabs stay tabs.
  std::string pad;
  int col = 1;
  for (unsigned char c : src) {
    if (col >= e.loc.col) break;
    if ((c & 0xC0) == 0x80) continue;
    pad += c == '\t' ? '\t' : ' ';
    ++col;
  }
  std::cerr << "  " << src << "\n  " << pad << "^\n";
}

namespace {
std::set<std::string> *printed_warnings = nullptr;  // the innermost WarningsOnce's, if any
}

WarningsOnce::WarningsOnce() : outer_(printed_warnings) { printed_warnings = &printed_; }
WarningsOnce::~WarningsOnce() { printed_warnings = outer_; }

void warn_at(const SourceLoc &loc, const std::string &msg) {
  const std::string line = position(loc) + ": warning: " + msg;
  if (printed_warnings && !printed_warnings->insert(line).second) return;
  std::cerr << line << '\n';
}

void unreachable(const char *what) {
  std::cerr << "lagrangec: internal error: " << what << " (a bug in lagrangec, not in your spec)\n";
  std::abort();
}

}  // namespace lgc
