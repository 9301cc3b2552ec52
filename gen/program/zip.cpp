// zip.cpp — a stored zip archive (PKWARE's APPNOTE: local headers, the
// central directory, its end record), enough for an FMU without a zip
// library or a zip program.
#include "program/zip.h"

#include <array>
#include <cstdint>
#include <stdexcept>

namespace lgc {

namespace {

uint32_t crc32(const std::string &data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char byte : data) c = table[(c ^ byte) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put16(std::string &out, uint32_t v) {
  out += char(v & 0xFF);
  out += char((v >> 8) & 0xFF);
}

void put32(std::string &out, uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

constexpr uint32_t kMax32 = 0xFFFFFFFFu;
constexpr uint16_t kVersion = 20;         // 2.0: what a stored file needs
constexpr uint16_t kUtf8Names = 1 << 11;  // general purpose flag: names are UTF-8
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00:00

uint32_t checked_size(size_t n, const std::string &what) {
  if (n >= kMax32) throw std::runtime_error(what + " is past the 4 GiB of a zip without ZIP64");
  return uint32_t(n);
}

// The fields a local header and a central directory entry share, from "version needed" on.
void common_fields(std::string &out, const ZipEntry &e, uint32_t crc) {
  put16(out, kVersion);
  put16(out, kUtf8Names);
  put16(out, 0);  // stored
  put16(out, 0);  // time
  put16(out, kDosDate);
  put32(out, crc);
  put32(out, checked_size(e.content.size(), e.name));  // compressed size
  put32(out, checked_size(e.content.size(), e.name));
  put16(out, uint16_t(e.name.size()));
  put16(out, 0);  // extra field
}

}  // namespace

std::string zip_archive(const std::vector<ZipEntry> &entries) {
  if (entries.size() > 0xFFFF) throw std::runtime_error("more files than a zip without ZIP64 holds");
  std::string out, directory;
  for (const ZipEntry &e : entries) {
    if (e.name.empty() || e.name.size() > 0xFFFF) throw std::runtime_error("a zip entry's name is empty or too long");
    const uint32_t crc = crc32(e.content), offset = checked_size(out.size(), "the archive");
    put32(out, 0x04034b50);
    common_fields(out, e, crc);
    out += e.name;
    out += e.content;
    put32(directory, 0x02014b50);
    put16(directory, (3 << 8) | kVersion);  // made by: Unix, so the external attributes are its modes
    common_fields(directory, e, crc);
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, uint32_t(e.executable ? 0100755 : 0100644) << 16);
    put32(directory, offset);
    directory += e.name;
  }
  const uint32_t directory_offset = checked_size(out.size(), "the archive");
  out += directory;
  put32(out, 0x06054b50);
  put16(out, 0);  // this disk
  put16(out, 0);  // the directory's disk
  put16(out, uint16_t(entries.size()));
  put16(out, uint16_t(entries.size()));
  put32(out, checked_size(directory.size(), "the zip's directory"));
  put32(out, directory_offset);
  put16(out, 0);  // comment
  checked_size(out.size(), "the archive");
  return out;
}

}  // namespace lgc
