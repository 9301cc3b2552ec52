// zip.h — a zip archive of stored (uncompressed) files, as an FMU is one.
#pragma once

#include <string>
#include <vector>

namespace lgc {

// ---- zip.cpp --------------------------------------------------------------

struct ZipEntry {
  std::string name;     // its path in the archive, '/'-separated
  std::string content;
  bool executable = false;
};

// The archive's bytes: each entry stored whole, with its CRC-32, and the
// central directory; the times are fixed (1980-01-01), so one content gives
// one archive. Throws past the 4 GiB and 65535 entries of a zip without
// ZIP64.
std::string zip_archive(const std::vector<ZipEntry> &entries);

}  // namespace lgc
