// sha256.cpp — SHA-256, the content hash of the simulate cache (its keys and
// the manifest a cached program must match to be run), by OpenSSL's libcrypto.
#include "program/sha256.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <openssl/evp.h>
#include <unistd.h>

namespace lgc {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::runtime_error("libcrypto: SHA-256 unavailable");
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

Sha256 &Sha256::update(const void *data, size_t size) {
  if (EVP_DigestUpdate(ctx_, data, size) != 1) throw std::runtime_error("libcrypto: SHA-256 update failed");
  return *this;
}

Sha256 &Sha256::update(const std::string &data) { return update(data.data(), data.size()); }

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx_, digest, &size) != 1) throw std::runtime_error("libcrypto: SHA-256 final failed");
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) out += digits[digest[i] >> 4], out += digits[digest[i] & 0xf];
  return out;
}

std::string sha256_hex(const std::string &data) { return Sha256().update(data).hex(); }

std::string sha256_hex_of_fd(int fd, const std::string &path) {
  Sha256 hash;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) return hash.hex();
    hash.update(buf, size_t(n));
  }
}

}  // namespace lgc
