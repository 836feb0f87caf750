// SHA-256 of a stream of bytes (OpenSSL's libcrypto), as hex: what the hub publishes as the
// etag of a large (LFS) file.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace tinylm::download {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  std::string hex();  // once, at the end

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);
// The SHA-256 of a file's bytes, read in pieces; InputError when it cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace tinylm::download
