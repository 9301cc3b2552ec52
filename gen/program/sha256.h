// sha256.h — content hashes for the program cache (libcrypto's SHA-256).
#pragma once

#include <cstddef>
#include <string>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace lgc {

// ---- sha256.cpp -----------------------------------------------------------

// SHA-256 of a stream of bytes (libcrypto); hex() ends it (call it once).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  Sha256 &update(const void *data, size_t size);
  Sha256 &update(const std::string &data);
  std::string hex();  // 64 lowercase hex digits

 private:
  ::evp_md_ctx_st *ctx_;  // OpenSSL's EVP_MD_CTX
};
std::string sha256_hex(const std::string &data);
// Of everything left to read from fd; `path` names it in errors.
std::string sha256_hex_of_fd(int fd, const std::string &path);

}  // namespace lgc
