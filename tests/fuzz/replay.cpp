// replay.cpp — runs the fuzz target once on each file named on the command
// line, or in each directory named, so any compiler can replay the corpus
// and the regression cases without libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!fs::is_directory(argv[i])) inputs.push_back(argv[i]);
    else
      for (auto &e : fs::directory_iterator(argv[i])) inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  for (auto &p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::fprintf(stderr, "replay: cannot read %s\n", p.c_str()), 1;
    std::fprintf(stderr, "replay: %s\n", p.c_str());  // the last one named is the culprit of a crash
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  return 0;
}
