// process.hpp — running real programs and reading real files, for the tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

struct Result {
  int status;            // exit status, or 128 + signal
  std::string out, err;  // what it wrote to stdout and stderr
};

// Runs argv (searched in PATH) with stdout and stderr captured; `env` adds
// NAME=VALUE entries to the environment.
Result run(const std::vector<std::string> &argv, const std::vector<std::string> &env = {});
std::string slurp(const std::filesystem::path &p);
// A new empty directory under the temporary directory.
std::filesystem::path scratch(const std::string &tag);

// cmocka group fixtures: one scratch directory for a whole group of tests,
// made before the first and removed after the last; group_dir() names it.
int group_dir_setup(void **state);
int group_dir_teardown(void **state);
const std::filesystem::path &group_dir();
