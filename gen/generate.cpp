// generate.cpp — the whole pipeline for one spec, and writing its files
// whole or not at all.
#include "lagrangec.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lgc {

GeneratedFiles generate(const Spec &spec) {
  Model model = derive(spec);
  return {emit_header(model), emit_source(model), emit_descriptor(model), emit_report(model)};
}

namespace {

[[noreturn]] void io_error(const std::string &what, const std::string &path, int err) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(err));
}

// A temporary file beside `path`, filled with `content` and flushed to disk.
std::string write_temporary(const std::string &path, const std::string &content) {
  std::string tmp = path + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) io_error("create a file beside", path, errno);
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      io_error("write", path, err);
    }
    done += size_t(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    io_error("write", path, err);
  }
  return tmp;
}

}  // namespace

void write_file_atomically(const std::string &path, const std::string &content) {
  std::string tmp = write_temporary(path, content);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    io_error("replace", path, err);
  }
}

void write_generated(const Spec &spec, const GeneratedFiles &files, const std::string &dir) {
  const std::pair<std::string, const std::string *> outputs[] = {{spec.name + ".h", &files.header},
                                                                 {spec.name + ".c", &files.source},
                                                                 {spec.name + "_model.c", &files.descriptor},
                                                                 {spec.name + ".md", &files.report}};
  // All temporaries first, then the renames: a failure before the renames
  // leaves every previous file as it was.
  std::vector<std::pair<std::string, std::string>> staged;
  try {
    for (auto &[name, content] : outputs) {
      std::string path = dir + "/" + name;
      staged.push_back({write_temporary(path, *content), path});
    }
  } catch (...) {
    for (auto &s : staged) ::unlink(s.first.c_str());
    throw;
  }
  for (auto &[tmp, path] : staged)
    if (std::rename(tmp.c_str(), path.c_str()) != 0) io_error("replace", path, errno);
}

}  // namespace lgc
