// cli.hpp — what the command-line tests share: a spec of specs/ by name, and
// the assertion that a program's output says something. Include it last,
// after cmocka.hpp's other users (it includes cmocka.hpp, which defines a
// macro `fail`).
#pragma once

#include <string>

#include "cmocka.hpp"

#ifdef SPECS_DIR
// specs/NAME.toml (SPECS_DIR is the test's -D).
inline std::string spec(const char *name) { return std::string(SPECS_DIR) + "/" + name + ".toml"; }
#endif

// Fails the test, showing `text`, unless it contains `part`.
inline void assert_contains(const std::string &text, const std::string &part) {
  if (text.find(part) == std::string::npos) fail_msg("no '%s' in:\n%s", part.c_str(), text.c_str());
}
