// cache.h — the user's program cache: entries checked before use, built
// under a lock.
#pragma once

#include <functional>
#include <string>

namespace lgc {

// ---- cache.cpp ------------------------------------------------------------

// A directory held open, so that what was checked is what is used: `fd` for
// the *at calls and as a working directory, `path` for messages, `via_fd`
// (/proc/self/fd/N) for calls that take a path.
struct OpenDir {
  int fd;
  std::string path, via_fd;
};

// A descriptor, open for fexecve, of the program `name` in entry `entry` of
// the user's cache, after checking it against the entry's manifest. When it
// is missing or does not match, `build` first writes it and its sources into
// an empty staging directory, under the entry's lock (concurrent callers wait,
// then use what it built). Throws, naming the path, when a directory or file
// on the way is not the user's alone.
int cached_program(const std::string &entry, const std::string &name,
                   const std::function<void(const OpenDir &staging)> &build);

}  // namespace lgc
