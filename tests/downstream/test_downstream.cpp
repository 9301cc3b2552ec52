// test_downstream.cpp — tests/downstream/project, a project using lagrangec
// as any other would: configured with lagrangec as a subproject (a symlink
// to this checkout, through the wrap file docs/embedding.md gives), built, run; its spec edited, so the model is
// regenerated and rebuilt; then lagrangec installed from that build and the
// project configured again against the installed program and pkg-config.
#include <fstream>

#include "process.hpp"

#include "cli.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {


Result must(const std::vector<std::string> &argv, const std::vector<std::string> &env = {}) {
  Result r = run(argv, env);
  if (r.status != 0) fail_msg("%s: exit %d\n%s\n%s", argv[0].c_str(), r.status, r.out.c_str(), r.err.c_str());
  return r;
}

// A copy of the project at group_dir()/NAME.
fs::path copy_project(const std::string &name) {
  fs::path dir = group_dir() / name;
  fs::copy(DOWNSTREAM_DIR, dir, fs::copy_options::recursive);
  return dir;
}

// The wrap file as docs/embedding.md gives it: its ```ini block.
std::string documented_wrap() {
  std::string doc = slurp(fs::path(SOURCE_ROOT) / "docs" / "embedding.md");
  size_t begin = doc.find("```ini\n"), end = doc.find("```", begin + 7);
  if (begin == std::string::npos || end == std::string::npos) fail_msg("docs/embedding.md has no ```ini block");
  return doc.substr(begin + 7, end - begin - 7);
}

void as_a_subproject_rebuilt_when_the_spec_changes(void **) {
  fs::path src = copy_project("subproject");
  fs::create_directories(src / "subprojects");
  std::ofstream(src / "subprojects" / "lagrangec.wrap") << documented_wrap();
  fs::create_directory_symlink(SOURCE_ROOT, src / "subprojects" / "lagrangec");
  fs::path build = group_dir() / "build";
  Result r = must({MESON, "setup", build.string(), src.string(), "--prefix=" + (group_dir() / "prefix").string()});
  assert_contains(r.out, "Program lagrangec found: YES (overridden)");
  must({NINJA, "-C", build.string()});
  assert_contains(must({(build / "downstream").string()}).out, "k = 4: q(1) = -0.416146837,");
  assert_contains(must({NINJA, "-C", build.string()}).out, "no work to do");

  std::string spec = slurp(src / "spring.toml");
  spec.replace(spec.find("k = 4.0"), 7, "k = 9.0");
  std::ofstream(src / "spring.toml") << spec;
  r = must({NINJA, "-C", build.string()});
  assert_contains(r.out, "Generating spring");
  assert_contains(r.out, "Linking target downstream");
  assert_contains(must({(build / "downstream").string()}).out, "k = 9: q(1) = -0.989992497,");
}

// Uses the build of the test above: its prefix gets lagrangec installed.
void installed_through_path_and_pkg_config(void **) {
  fs::path prefix = group_dir() / "prefix";
  must({MESON, "install", "-C", (group_dir() / "build").string()});
  fs::path pc;
  for (auto &e : fs::recursive_directory_iterator(prefix))
    if (e.path().filename() == "lagrangec.pc") pc = e.path();
  if (pc.empty()) fail_msg("no lagrangec.pc under %s after meson install", prefix.c_str());
  std::vector<std::string> env = {"PATH=" + (prefix / "bin").string() + ":" + getenv("PATH"),
                                  "PKG_CONFIG_PATH=" + pc.parent_path().string(),
                                  "LD_LIBRARY_PATH=" + pc.parent_path().parent_path().string()};
  fs::path src = copy_project("installed"), build = group_dir() / "build-installed";
  Result r = must({MESON, "setup", build.string(), src.string(), "--wrap-mode=nofallback"}, env);
  assert_contains(r.out, "Program lagrangec found: YES (" + (prefix / "bin" / "lagrangec").string() + ")");
  must({NINJA, "-C", build.string()}, env);
  assert_contains(must({(build / "downstream").string()}, env).out, "k = 4: q(1) = -0.416146837,");
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(as_a_subproject_rebuilt_when_the_spec_changes),
      cmocka_unit_test(installed_through_path_and_pkg_config),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
