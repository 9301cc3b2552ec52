// test_cache.cpp — simulate's cache of compiled programs, attacked and
// raced: private directories and their checks (a program planted by
// another local user never runs), entries that are rebuilt when broken,
// $CC as words and in the key, parallel runs on a cold cache, a killed
// builder; and the SHA-256 its manifest is made of.
#include <algorithm>
#include <cstdlib>
#include <csignal>
#include <functional>
#include <fstream>
#include <sstream>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program/sha256.h"
#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

const std::string lagrangec = LAGRANGEC;
const std::string pendulum = std::string(SPECS_DIR) + "/pendulum.toml";
const std::vector<std::string> kShortRun = {"--t-end", "0.01", "--quiet"};

Result simulate(const fs::path &cache, const std::vector<std::string> &env = {},
                const std::vector<std::string> &options = kShortRun) {
  std::vector<std::string> argv = {lagrangec, "simulate", pendulum};
  argv.insert(argv.end(), options.begin(), options.end());
  std::vector<std::string> environment = {"LAGRANGEC_CACHE=" + cache.string()};
  environment.insert(environment.end(), env.begin(), env.end());
  return run(argv, environment);
}

void expect_success(const Result &r, const char *what) {
  if (r.status != 0) fail_msg("%s: exit %d, stderr: %s", what, r.status, r.err.c_str());
}

// A refusal: exit 1, nothing run (no output), the path and the reason named.
void expect_refusal(const Result &r, const fs::path &path, const std::string &reason) {
  std::string expected = "lagrangec: refusing to use " + path.string() + ": " + reason;
  if (r.status != 1 || r.err.rfind(expected, 0) != 0 || !r.out.empty())
    fail_msg("expected exit 1 and '%s...', got exit %d, stderr: %s, stdout: %s", expected.c_str(), r.status,
             r.err.c_str(), r.out.c_str());
}

// The cache's entries (directories), and the one entry when there is one.
std::vector<fs::path> entries(const fs::path &cache) {
  std::vector<fs::path> found;
  if (!fs::is_directory(cache)) fail_msg("no cache directory %s", cache.c_str());
  for (auto &e : fs::directory_iterator(cache)) found.push_back(e.path());
  return found;
}

fs::path the_entry(const fs::path &cache) {
  std::vector<fs::path> found = entries(cache);
  if (found.size() != 1) fail_msg("expected one entry in %s, found %zu", cache.c_str(), found.size());
  return found[0];
}

unsigned mode_of(const fs::path &p) {
  struct stat st;
  if (lstat(p.c_str(), &st) != 0) fail_msg("cannot lstat %s", p.c_str());
  return st.st_mode & 07777;
}

void expect_mode(const fs::path &p, unsigned mode) {
  if (mode_of(p) != mode) fail_msg("%s has mode %04o, expected %04o", p.c_str(), mode_of(p), mode);
}

void write_file(const fs::path &p, const std::string &text, fs::perms perms = fs::perms(0644)) {
  std::ofstream(p, std::ios::binary) << text;
  fs::permissions(p, perms);
}

// The line `sha256sum FILE` prints for each file of the entry, as our
// manifest has them.
std::string coreutils_manifest(const fs::path &entry) {
  std::vector<std::string> names;
  for (auto &e : fs::directory_iterator(entry))
    if (e.path().filename() != "manifest" && e.path().filename() != "lock") names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  std::string manifest;
  for (auto &name : names) {
    Result r = run({"sha256sum", (entry / name).string()});
    manifest += r.out.substr(0, 64) + "  " + name + "\n";
  }
  return manifest;
}

// ---- SHA-256 --------------------------------------------------------------

// FIPS 180-2's examples, and every length around the padding's edges
// against coreutils' sha256sum, fed whole and in uneven pieces.
void sha256_matches_the_standard_and_coreutils(void **) {
  assert_string_equal(lgc::sha256_hex("").c_str(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert_string_equal(lgc::sha256_hex("abc").c_str(),
                      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert_string_equal(lgc::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").c_str(),
                      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  assert_string_equal(lgc::sha256_hex(std::string(1000000, 'a')).c_str(),
                      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  fs::path dir = scratch("sha");
  for (size_t n : {1, 31, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000}) {
    std::string data;
    for (size_t i = 0; i < n; ++i) data += char(i * 131 + 7);
    write_file(dir / "data", data);
    std::string expected = run({"sha256sum", (dir / "data").string()}).out.substr(0, 64);
    assert_string_equal(lgc::sha256_hex(data).c_str(), expected.c_str());
    lgc::Sha256 pieces;
    for (size_t at = 0, step = 1; at < n; at += step, step = step * 3 % 67 + 1)
      pieces.update(data.data() + at, std::min(step, n - at));
    assert_string_equal(pieces.hex().c_str(), expected.c_str());
  }
  fs::remove_all(dir);
}

// ---- where the cache is, and how it is protected ---------------------------

// No LAGRANGEC_CACHE or XDG_CACHE_HOME (empty counts as unset): under
// $HOME/.cache, every directory 0700, the program 0700 and the rest 0600,
// with a manifest that agrees with sha256sum.
void cache_is_private_and_has_a_manifest(void **) {
  fs::path home = scratch("home");
  Result r = run({lagrangec, "simulate", pendulum, "--t-end", "0.01", "--quiet"},
                 {"HOME=" + home.string(), "LAGRANGEC_CACHE=", "XDG_CACHE_HOME="});
  expect_success(r, "simulate with only HOME");
  fs::path cache = home / ".cache" / "lagrangec", entry = the_entry(cache);
  expect_mode(home / ".cache", 0700);
  expect_mode(cache, 0700);
  expect_mode(entry, 0700);
  expect_mode(entry / "pendulum", 0700);
  for (const char *f : {"pendulum.c", "pendulum.h", "pendulum_model.c", "main.c", "manifest", "lock"})
    expect_mode(entry / f, 0600);
  assert_string_equal(slurp(entry / "manifest").c_str(), coreutils_manifest(entry).c_str());
  fs::remove_all(home);
}

// With none of LAGRANGEC_CACHE, XDG_CACHE_HOME, HOME (unset or empty) there
// is no default in a shared place such as /tmp: a clear error instead.
void no_home_is_an_error(void **) {
  for (auto env : {std::vector<std::string>{"LAGRANGEC_CACHE", "XDG_CACHE_HOME", "HOME"},
                   std::vector<std::string>{"LAGRANGEC_CACHE=", "XDG_CACHE_HOME=", "HOME="}}) {
    Result r = run({lagrangec, "simulate", pendulum, "--t-end", "0.01"}, env);
    if (r.status != 1 || r.err.find("no cache directory") == std::string::npos ||
        r.err.find("LAGRANGEC_CACHE") == std::string::npos)
      fail_msg("exit %d, stderr: %s", r.status, r.err.c_str());
  }
}

// A directory or file of the cache that its group or others may write is
// refused, naming it; so is a symbolic link anywhere in the chain.
void writable_or_linked_parts_are_refused(void **) {
  fs::path cache = scratch("cache");
  expect_success(simulate(cache), "the first run");
  fs::path entry = the_entry(cache), program = entry / "pendulum", manifest = entry / "manifest";
  struct Case {
    fs::path path;
    unsigned bad, good;
  };
  for (const Case &c : {Case{cache, 0770, 0700}, Case{cache, 0702, 0700}, Case{entry, 0720, 0700},
                        Case{program, 0722, 0700}, Case{manifest, 0660, 0600}}) {
    chmod(c.path.c_str(), c.bad);
    char reason[64];
    std::snprintf(reason, sizeof reason, "its group or others may write to it (mode %04o)", c.bad);
    expect_refusal(simulate(cache), c.path, reason);
    chmod(c.path.c_str(), c.good);
  }
  expect_success(simulate(cache), "the run after the modes were put back");

  fs::path elsewhere = scratch("elsewhere");
  fs::rename(cache, elsewhere / "real");
  fs::create_directory_symlink(elsewhere / "real", cache);
  expect_refusal(simulate(cache), cache, "it is a symbolic link");
  fs::remove(cache);
  fs::rename(elsewhere / "real", cache);

  fs::rename(entry, elsewhere / "entry");
  fs::create_directory_symlink(elsewhere / "entry", entry);
  expect_refusal(simulate(cache), entry, "it is a symbolic link");
  fs::remove(entry);
  fs::rename(elsewhere / "entry", entry);

  fs::rename(program, elsewhere / "pendulum");
  fs::create_symlink(elsewhere / "pendulum", program);
  expect_refusal(simulate(cache), program, "it is a symbolic link");
  fs::remove_all(elsewhere);
  fs::remove_all(cache);
}

// ---- broken entries are rebuilt ---------------------------------------------

// A truncated program, one replaced by a script, and a lost manifest: each
// is said once on stderr and rebuilt; the script never runs.
void broken_entries_are_rebuilt(void **) {
  fs::path cache = scratch("cache"), marker = cache.parent_path() / (cache.filename().string() + "-marker");
  expect_success(simulate(cache), "the first run");
  fs::path entry = the_entry(cache), program = entry / "pendulum";
  std::string built = slurp(program);
  struct Breakage {
    const char *what;
    std::function<void()> apply;
  };
  const Breakage breakages[] = {
      {"does not match its manifest", [&] { fs::resize_file(program, built.size() / 2); }},
      {"does not match its manifest",
       [&] { write_file(program, "#!/bin/sh\ntouch " + marker.string() + "\n", fs::perms(0700)); }},
      {"has no manifest", [&] { fs::remove(entry / "manifest"); }},
  };
  for (const Breakage &b : breakages) {
    b.apply();
    Result r = simulate(cache);
    expect_success(r, b.what);
    std::string said = "lagrangec: " + program.string() + " " + b.what;
    size_t at = r.err.find(said);
    if (at != 0 || r.err.find("rebuilding", at) == std::string::npos || r.err.find("lagrangec:", 1) != std::string::npos)
      fail_msg("expected one line '%s ...: rebuilding it', stderr: %s", said.c_str(), r.err.c_str());
    if (fs::exists(marker)) fail_msg("the planted script ran");
    if (slurp(program) != built) fail_msg("the rebuilt program differs from the first build");
    Result again = simulate(cache);
    expect_success(again, "the run after the rebuild");
    if (!again.err.empty()) fail_msg("the run after the rebuild said: %s", again.err.c_str());
  }
  fs::remove_all(cache);
}

// A C compiler for the tests, `cc` itself unless told otherwise by files
// beside it: `started` is made when it starts, it waits while `hold` exists
// (a builder to kill) and writes junk as its output while `junk` exists.
fs::path fake_compiler(const fs::path &dir, const std::string &name = "fake-cc") {
  fs::path cc = dir / name;
  write_file(cc,
             "#!/bin/sh\n"
             "here=$(dirname \"$0\")\n"
             ": > \"$here/started\"\n"
             "while [ -e \"$here/hold\" ]; do sleep 0.05; done\n"
             "if [ -e \"$here/junk\" ]; then\n"
             "  for arg; do [ \"$prev\" = -o ] && printf 'junk\\n' > \"$arg\" && chmod +x \"$arg\"; prev=$arg; done\n"
             "  exit 0\n"
             "fi\n"
             "exec cc \"$@\"\n",
             fs::perms(0755));
  return cc;
}

// A compiler that exits 0 after writing junk gets an error, and leaves
// nothing in the cache: once it compiles again, the same $CC builds and runs.
void junk_from_the_compiler_is_not_cached(void **) {
  fs::path cache = scratch("cache"), tools = scratch("tools");
  fs::path cc = fake_compiler(tools);
  write_file(tools / "junk", "");
  Result junk = simulate(cache, {"CC=" + cc.string()});
  std::string expected = "lagrangec: cannot run the program that " + cc.string() + " made in ";
  if (junk.status != 1 || junk.err.rfind(expected, 0) != 0 || junk.err.find("Exec format error") == std::string::npos)
    fail_msg("expected '%s...: Exec format error', exit %d, stderr: %s", expected.c_str(), junk.status, junk.err.c_str());
  if (!entries(cache).empty()) fail_msg("the junk left %s in the cache", entries(cache)[0].c_str());
  fs::remove(tools / "junk");
  expect_success(simulate(cache, {"CC=" + cc.string()}), "the same $CC, compiling again");
  fs::remove_all(tools);
  fs::remove_all(cache);
}

// A first build that fails (a spec whose derivation fails, a compiler that
// stops) leaves no entry behind, not even an empty one with its lock; a
// build that then succeeds makes its entry as usual.
void a_failed_build_leaves_no_entry(void **) {
  fs::path cache = scratch("cache"), tools = scratch("tools");
  for (const char *bad : {"kinetic_not_quadratic", "singular_mass"}) {
    std::string spec = std::string(BAD_SPECS_DIR) + "/" + bad + ".toml";
    Result r = run({lagrangec, "simulate", spec, "--t-end", "0.01"}, {"LAGRANGEC_CACHE=" + cache.string()});
    if (r.status != 1) fail_msg("%s: exit %d, expected 1: %s", bad, r.status, r.err.c_str());
    if (!entries(cache).empty()) fail_msg("%s left %s in the cache", bad, entries(cache)[0].c_str());
  }
  write_file(tools / "false-cc", "#!/bin/sh\nexit 1\n", fs::perms(0755));
  Result r = simulate(cache, {"CC=" + (tools / "false-cc").string()});
  if (r.status != 1 || r.err.find("compiling the model's program failed (exit status 1)") == std::string::npos)
    fail_msg("a compiler that fails: exit %d: %s", r.status, r.err.c_str());
  if (!entries(cache).empty()) fail_msg("a failed compile left %s in the cache", entries(cache)[0].c_str());
  expect_success(simulate(cache), "the run after them");
  the_entry(cache);
  fs::remove_all(tools);
  fs::remove_all(cache);
}

// ---- limits: the generator's, not the compiler's or the program's ------------

// "Max address space" of /proc/PID/limits: its soft limit, "unlimited" or bytes.
std::string address_space_limit(const std::string &limits) {
  size_t at = limits.find("Max address space");
  if (at == std::string::npos) fail_msg("no 'Max address space' in:\n%s", limits.c_str());
  std::istringstream line(limits.substr(at + 17));
  std::string soft;
  line >> soft;
  return soft;
}

// The generator's 4 GiB ceiling is lagrangec's own: the C compiler and the
// model's program get the user's limit, unlimited or not (8 GiB here).
void the_compiler_and_the_program_get_the_users_limits(void **) {
  if (kSanitized) {
    print_message("skipped: a sanitized lagrangec cannot run under an address-space limit\n");
    skip();
  }
  fs::path tools = scratch("tools");
  fs::path cc = tools / "limits-cc";
  write_file(cc, "#!/bin/sh\ncat /proc/self/limits > \"$(dirname \"$0\")/limits\"\nexec cc \"$@\"\n", fs::perms(0755));
  for (const std::string soft : {"unlimited", "8589934592"}) {
    fs::path cache = scratch("cache");
    const std::vector<std::string> env = {"LAGRANGEC_CACHE=" + cache.string(), "CC=" + cc.string()};
    std::vector<std::string> argv = {"prlimit", "--as=" + soft + ":unlimited", lagrangec, "simulate", pendulum,
                                     "--dt", "1e-7", "--t-end", "1000", "--quiet"};
    if (geteuid() != 0 && soft == "unlimited") argv.erase(argv.begin(), argv.begin() + 2);  // raising it needs root
    Started s = start(argv, env, true);
    // The program, once lagrangec has become it (fexecve keeps the pid; prlimit execs lagrangec too).
    std::string exe;
    for (int waited = 0; waited < 6000; ++waited, usleep(10000)) {
      std::error_code ec;
      exe = fs::read_symlink("/proc/" + std::to_string(s.pid) + "/exe", ec).string();
      if (exe.find(cache.string()) != std::string::npos) break;
    }
    std::string program_limits = slurp("/proc/" + std::to_string(s.pid) + "/limits");
    kill(-s.pid, SIGKILL);
    finish(s);
    if (exe.find(cache.string()) == std::string::npos) fail_msg("the program never ran (pid %d is %s)", s.pid, exe.c_str());
    std::string compiler = address_space_limit(slurp(tools / "limits"));
    std::string program = address_space_limit(program_limits);
    std::string expected = geteuid() != 0 && soft == "unlimited" ? address_space_limit(slurp("/proc/self/limits")) : soft;
    if (compiler != expected || program != expected)
      fail_msg("with the user's address space at %s, the compiler had %s and the program %s", expected.c_str(),
               compiler.c_str(), program.c_str());
    fs::remove_all(cache);
  }
  fs::remove_all(tools);
}

// A compiler stopped by a limit (the kernel's SIGKILL, or its own "out of
// memory") is said to be, with the size of the source and the ways to a
// smaller one; the compiler's own words come first.
void a_compiler_stopped_by_a_limit_is_named(void **) {
  fs::path tools = scratch("tools"), cache = scratch("cache");
  write_file(tools / "killed-cc", "#!/bin/sh\nkill -KILL $$\n", fs::perms(0755));
  write_file(tools / "oom-cc",
             "#!/bin/sh\necho 'cc1: out of memory allocating 65536 bytes after a total of 4198400 bytes' >&2\nexit 1\n",
             fs::perms(0755));
  const std::pair<const char *, const char *> cases[] = {{"killed-cc", "(killed by signal 9)"},
                                                         {"oom-cc", "(exit status 1, out of memory)"}};
  for (auto &[cc, how] : cases) {
    Result r = simulate(cache, {"CC=" + (tools / cc).string()});
    const std::string expected = std::string("lagrangec: the C compiler (") + (tools / cc).string() +
                                 ") was stopped by a limit " + how + " compiling pendulum.c, ";
    size_t at = r.err.find(expected);
    if (r.status != 1 || at == std::string::npos || r.err.find("MB of generated C") == std::string::npos ||
        r.err.find("--no-jacobian") == std::string::npos)
      fail_msg("%s: expected exit 1 and '%s... MB of generated C ... --no-jacobian', got exit %d: %s", cc,
               expected.c_str(), r.status, r.err.c_str());
    if (std::string(cc) == "oom-cc" && r.err.rfind("cc1: out of memory", 0) != 0)
      fail_msg("the compiler's own message does not come first: %s", r.err.c_str());
    if (!entries(cache).empty()) fail_msg("%s left %s in the cache", cc, entries(cache)[0].c_str());
  }
  fs::remove_all(tools);
  fs::remove_all(cache);
}

// ---- $CC: words, not shell code, and part of the key -------------------------

void cc_is_split_into_words_and_keyed(void **) {
  fs::path cache = scratch("cache"), tools = scratch("tools");
  fs::path spaced = fake_compiler(tools, "my cc");
  expect_success(simulate(cache, {"CC=gcc -O0"}), "CC=\"gcc -O0\"");
  expect_success(simulate(cache, {"CC='" + spaced.string() + "' -O0"}), "CC with a quoted path");
  expect_success(simulate(cache, {"CC=\"" + spaced.string() + "\" -O0"}), "CC with a double-quoted path");
  expect_success(simulate(cache, {"CC="}), "an empty CC (cc)");
  // Three commands, three entries: gcc -O0; my cc -O0 (either quoting); cc.
  if (entries(cache).size() != 3) fail_msg("expected 3 entries, found %zu", entries(cache).size());
  // Nothing of $CC reaches a shell: a $(...) is a word like any other.
  fs::path marker = tools / "marker";
  Result r = simulate(cache, {"CC=gcc $(touch " + marker.string() + ")"});
  if (r.status != 1 || fs::exists(marker)) fail_msg("exit %d, marker %d: %s", r.status, int(fs::exists(marker)), r.err.c_str());
  Result unclosed = simulate(cache, {"CC=gcc '-O0"});
  if (unclosed.status != 1 || unclosed.err != "lagrangec: $CC:5: an unclosed '\n    gcc '-O0\n        ^\n")
    fail_msg("exit %d, stderr: %s", unclosed.status, unclosed.err.c_str());
  fs::remove_all(tools);
  fs::remove_all(cache);
}

// ---- many processes, one cache ---------------------------------------------

// Eight runs of one spec started together on a cold cache: one builds, the
// others wait for it; all succeed with the same CSV and leave one entry.
void parallel_runs_on_a_cold_cache(void **) {
  fs::path cache = scratch("cache"), out = scratch("out");
  std::vector<std::vector<std::string>> runs;
  for (int i = 0; i < 8; ++i)
    runs.push_back({lagrangec, "simulate", pendulum, "--t-end", "0.5", "--quiet", "--out",
                    (out / ("run" + std::to_string(i) + ".csv")).string()});
  std::vector<Result> results = run_together(runs, {"LAGRANGEC_CACHE=" + cache.string()});
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].status != 0 || !results[i].err.empty())
      fail_msg("run %zu: exit %d, stderr: %s", i, results[i].status, results[i].err.c_str());
  std::string first = slurp(out / "run0.csv");
  if (first.size() <= 1000) fail_msg("run0.csv holds %zu bytes, a run to t = 0.5 writes more than 1000", first.size());
  for (int i = 1; i < 8; ++i)
    if (slurp(out / ("run" + std::to_string(i) + ".csv")) != first) fail_msg("run%d.csv differs from run0.csv", i);
  fs::path entry = the_entry(cache);
  for (auto &e : fs::directory_iterator(entry))
    if (e.path().filename().string().rfind("build-", 0) == 0) fail_msg("left behind: %s", e.path().c_str());
  fs::remove_all(out);
  fs::remove_all(cache);
}

// A builder killed (SIGKILL, no cleanup) while it holds the entry's lock:
// the kernel releases the lock with the process, and the next run builds.
void a_killed_builder_blocks_nobody(void **) {
  fs::path cache = scratch("cache"), tools = scratch("tools");
  fs::path cc = fake_compiler(tools);
  write_file(tools / "hold", "");
  Started builder = start({lagrangec, "simulate", pendulum, "--t-end", "0.01", "--quiet"},
                          {"LAGRANGEC_CACHE=" + cache.string(), "CC=" + cc.string()}, true);
  for (int waited = 0; !fs::exists(tools / "started") && waited < 6000; ++waited) usleep(10000);
  Flocks held = flocks_of(builder.pid);
  kill(-builder.pid, SIGKILL);  // lagrangec and its compiler
  assert_int_equal(finish(builder).status, 128 + SIGKILL);
  if (held.held != 1) fail_msg("the builder held %d flocks, expected its entry's lock", held.held);
  Flocks after = flocks_of(builder.pid);
  if (after.held + after.waiting != 0) fail_msg("the killed builder still holds %d flocks", after.held);
  fs::remove(tools / "hold");
  Result next = simulate(cache, {"CC=" + cc.string()});
  expect_success(next, "the run after the killed builder");
  for (auto &e : fs::directory_iterator(the_entry(cache)))
    if (e.path().filename().string().rfind("build-", 0) == 0) fail_msg("left behind: %s", e.path().c_str());
  fs::remove_all(tools);
  fs::remove_all(cache);
}

// ---- another local user (root only) -----------------------------------------

// A second local user, made for these tests and removed after them.
struct OtherUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
} other;

const std::string kUserPrefix = "lgc-test-";

// Users of earlier runs of this test that died before removing them.
void remove_stale_users() {
  std::vector<std::string> stale;
  setpwent();
  while (struct passwd *pw = getpwent()) {
    std::string name = pw->pw_name;
    if (name.rfind(kUserPrefix, 0) == 0 && kill(std::atoi(name.c_str() + kUserPrefix.size()), 0) != 0)
      stale.push_back(name);
  }
  endpwent();
  for (auto &name : stale) run({"userdel", name});
}

int make_other_user(void **) {
  if (geteuid() != 0) return 0;
  remove_stale_users();
  other.name = kUserPrefix + std::to_string(getpid());
  for (int attempt = 0; attempt < 20; ++attempt) {  // useradd fails while another holds /etc/passwd
    if (run({"useradd", "--system", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", other.name}).status == 0)
      break;
    usleep(100000);
  }
  struct passwd *pw = getpwnam(other.name.c_str());
  if (!pw) return -1;
  other.uid = pw->pw_uid, other.gid = pw->pw_gid;
  return 0;
}

int remove_other_user(void **) {
  if (!other.name.empty()) run({"userdel", other.name});
  return 0;
}

// argv run as the other user.
std::vector<std::string> as_other(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"setpriv", "--reuid=" + std::to_string(other.uid),
                             "--regid=" + std::to_string(other.gid), "--clear-groups"});
  return argv;
}

bool skip_unless_root() {
  if (geteuid() == 0) return false;
  print_message("not root: cannot create a second local user for this test\n");
  return true;
}

// The attack: another user makes a shared cache (LAGRANGEC_CACHE, or
// the lagrangec directory under a shared XDG_CACHE_HOME) and plants a script
// as the program, with a manifest that matches it. Root's run refuses,
// naming the directory, and the script never runs.
void a_program_planted_by_another_user_never_runs(void **) {
  if (skip_unless_root()) return skip();
  // The entry's name, as the attacker can compute it: it is the same for everyone.
  fs::path own = scratch("own");
  expect_success(simulate(own), "a run in root's own cache");
  std::string entry_name = the_entry(own).filename();
  fs::remove_all(own);

  fs::path mine = scratch("mine"), marker = mine / "marker";
  fs::path kit = scratch("kit");  // the attacker's files, readable by them
  fs::permissions(kit, fs::perms(0755));
  std::string script = "#!/bin/sh\ntouch " + marker.string() + "\n";
  write_file(kit / "pendulum", script, fs::perms(0755));
  write_file(kit / "manifest", lgc::sha256_hex(script) + "  pendulum\n");

  std::string base = "/tmp/lgc-test-shared-" + std::to_string(getpid());
  for (std::string variable : {"LAGRANGEC_CACHE", "XDG_CACHE_HOME"}) {
    fs::path shared = base + "-" + variable, root = variable == "XDG_CACHE_HOME" ? shared / "lagrangec" : shared;
    fs::path entry = root / entry_name;
    for (auto argv : {std::vector<std::string>{"mkdir", "-m", "0777", "-p", entry.string()},
                      std::vector<std::string>{"chmod", "0777", shared.string(), root.string()},
                      std::vector<std::string>{"install", "-m", "0755", (kit / "pendulum").string(), entry.string()},
                      std::vector<std::string>{"install", "-m", "0644", (kit / "manifest").string(), entry.string()}}) {
      Result r = run(as_other(argv));
      if (r.status != 0) fail_msg("%s as %s: %s", argv[0].c_str(), other.name.c_str(), r.err.c_str());
    }
    Result r = run({lagrangec, "simulate", pendulum, "--t-end", "0.01"},
                   {variable + "=" + shared.string(), variable == "XDG_CACHE_HOME" ? "LAGRANGEC_CACHE" : "XDG_CACHE_HOME"});
    expect_refusal(r, root, "it belongs to uid " + std::to_string(other.uid) + ", not to you (uid 0)");
    if (fs::exists(marker)) fail_msg("the planted script ran");
    fs::remove_all(shared);
  }
  fs::remove_all(kit);
  fs::remove_all(mine);
}

// Inside root's own cache, an entry, a program or a manifest that belongs to
// another user is refused, naming it.
void parts_owned_by_another_user_are_refused(void **) {
  if (skip_unless_root()) return skip();
  fs::path cache = scratch("cache");
  expect_success(simulate(cache), "the first run");
  fs::path entry = the_entry(cache);
  for (const fs::path &p : {entry, entry / "pendulum", entry / "manifest"}) {
    chown(p.c_str(), other.uid, other.gid);
    expect_refusal(simulate(cache), p, "it belongs to uid " + std::to_string(other.uid) + ", not to you (uid 0)");
    chown(p.c_str(), 0, 0);
  }
  expect_success(simulate(cache), "the run after the owners were put back");
  fs::remove_all(cache);
}

// A fork that fails (the other user, limited to one process) is reported as
// what it is, not as a file that cannot be created.
void a_failed_fork_is_reported_as_such(void **) {
  if (skip_unless_root()) return skip();
  if (run(as_other({"test", "-x", lagrangec, "-a", "-r", pendulum})).status != 0) {
    print_message("%s cannot run %s on %s: skipped\n", other.name.c_str(), lagrangec.c_str(), pendulum.c_str());
    return skip();
  }
  fs::path cache = scratch("cache");
  chown(cache.c_str(), other.uid, other.gid);
  Result r = run(as_other({"prlimit", "--nproc=1", lagrangec, "simulate", pendulum, "--t-end", "0.01"}),
                 {"LAGRANGEC_CACHE=" + cache.string()});
  const std::string expected = "lagrangec: cannot start a process to run the C compiler (cc): Resource temporarily unavailable";
  if (r.status != 1 || r.err.rfind(expected, 0) != 0)
    fail_msg("expected exit 1 and '%s', got exit %d: %s", expected.c_str(), r.status, r.err.c_str());
  fs::remove_all(cache);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sha256_matches_the_standard_and_coreutils),
      cmocka_unit_test(cache_is_private_and_has_a_manifest),
      cmocka_unit_test(no_home_is_an_error),
      cmocka_unit_test(writable_or_linked_parts_are_refused),
      cmocka_unit_test(broken_entries_are_rebuilt),
      cmocka_unit_test(junk_from_the_compiler_is_not_cached),
      cmocka_unit_test(a_failed_build_leaves_no_entry),
      cmocka_unit_test(the_compiler_and_the_program_get_the_users_limits),
      cmocka_unit_test(a_compiler_stopped_by_a_limit_is_named),
      cmocka_unit_test(cc_is_split_into_words_and_keyed),
      cmocka_unit_test(parallel_runs_on_a_cold_cache),
      cmocka_unit_test(a_killed_builder_blocks_nobody),
      cmocka_unit_test(a_program_planted_by_another_user_never_runs),
      cmocka_unit_test(parts_owned_by_another_user_are_refused),
      cmocka_unit_test(a_failed_fork_is_reported_as_such),
  };
  return cmocka_run_group_tests(tests, make_other_user, remove_other_user);
}
