#include "core/shared_secret.h"

#include <vector>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace xfer::core {

Result<Nonce> FreshNonce() {
  Nonce nonce{};
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1) {
    return Internal("the random generator produced no nonce (RAND_bytes failed)");
  }
  return nonce;
}

Result<SharedSecret> SharedSecret::Create(std::string_view key) {
  if (key.size() < kMinSecretBytes) {
    return InvalidArgument(fmt::format("the shared secret has {} bytes; at least {} are needed",
                                       key.size(), kMinSecretBytes));
  }
  return SharedSecret(std::string(key));
}

SharedSecret::SharedSecret(SharedSecret&& other) noexcept : key_(std::move(other.key_)) {
  other.Wipe();
}

SharedSecret& SharedSecret::operator=(SharedSecret&& other) noexcept {
  if (this != &other) {
    Wipe();
    key_ = std::move(other.key_);
    other.Wipe();
  }
  return *this;
}

SharedSecret::~SharedSecret() { Wipe(); }

void SharedSecret::Wipe() {
  if (!key_.empty()) OPENSSL_cleanse(key_.data(), key_.size());
  key_.clear();
}

Mac SharedSecret::Sign(std::initializer_list<std::span<const uint8_t>> parts) const {
  std::vector<uint8_t> message;
  for (const auto& part : parts) message.insert(message.end(), part.begin(), part.end());
  Mac mac{};
  unsigned int length = 0;
  // One-shot HMAC: the messages are handshake-sized, and HMAC_CTX is
  // deprecated in OpenSSL 3. A null result cannot happen with SHA-256 and
  // a key in memory; it would leave `mac` zero, which no peer's MAC equals.
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), message.data(), message.size(),
       mac.data(), &length);
  return mac;
}

bool SameMac(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace xfer::core
