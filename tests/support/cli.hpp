// cli.hpp — what the command-line tests share: a spec of specs/ by name,
// the assertion that a program's output says something, a program cache of
// the test group's own, a text's lines, and a gnuplot that keeps its
// script. Include it last,
// after cmocka.hpp's other users (it includes cmocka.hpp, which defines a
// macro `fail`).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "process.hpp"  // before cmocka.hpp and its macro `fail`
#include "cmocka.hpp"

#ifdef SPECS_DIR
// specs/NAME.toml (SPECS_DIR is the test's -D).
inline std::string spec(const char *name) { return std::string(SPECS_DIR) + "/" + name + ".toml"; }
#ifdef RUNTIME_SPECS_DIR
// A spec of tests/runtime/specs/, the runtime's test models.
inline std::string test_spec(const char *name) { return std::string(RUNTIME_SPECS_DIR) + "/" + name + ".toml"; }
#endif
#endif

// Fails the test, showing `text`, unless it contains `part`.
inline void assert_contains(const std::string &text, const std::string &part) {
  if (text.find(part) == std::string::npos) fail_msg("no '%s' in:\n%s", part.c_str(), text.c_str());
}

// The environment entry that gives lagrangec a program cache of the test
// group's own, in its scratch directory (group_dir_setup).
inline std::vector<std::string> cache_env() { return {"LAGRANGEC_CACHE=" + (group_dir() / "cache").string()}; }

// The lines of a text, without their newlines.
inline std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A gnuplot that keeps the script it is given, in dir/script.gp, and runs
// the real one (the first on PATH) on it, its output and messages the
// real one's: the environment entry that puts it first on PATH.
inline std::vector<std::string> recording_gnuplot(const std::filesystem::path &dir) {
  const char *env = std::getenv("PATH");
  const std::string path = env ? env : "";
  std::string real;
  for (size_t at = 0; at <= path.size() && real.empty();) {
    size_t end = path.find(':', at);
    if (end == std::string::npos) end = path.size();
    std::string candidate = path.substr(at, end - at) + "/gnuplot";
    if (end > at && access(candidate.c_str(), X_OK) == 0) real = candidate;
    at = end + 1;
  }
  if (real.empty()) fail_msg("no gnuplot on PATH (%s)", path.c_str());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gnuplot") << "#!/bin/sh\ntee '" << (dir / "script.gp").string() << "' | exec '" << real
                                 << "'\n";
  std::filesystem::permissions(dir / "gnuplot", std::filesystem::perms::owner_all);
  return {"PATH=" + dir.string() + ":" + path};
}
