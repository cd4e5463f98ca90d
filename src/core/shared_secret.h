// The key two engines share when EngineOptions::secret is set, and the
// HMAC-SHA256 (OpenSSL libcrypto) the authenticated handshake computes with
// it. The key bytes are wiped when the object is destroyed.
#ifndef XFER_CORE_SHARED_SECRET_H_
#define XFER_CORE_SHARED_SECRET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "xfer/status.h"

namespace xfer::core {

inline constexpr size_t kMacBytes = 32;    // HMAC-SHA256
inline constexpr size_t kNonceBytes = 32;  // 256 bits: never repeats by chance
// Shorter secrets are refused: a guessable key authenticates nobody.
inline constexpr size_t kMinSecretBytes = 16;

using Mac = std::array<uint8_t, kMacBytes>;
using Nonce = std::array<uint8_t, kNonceBytes>;

// A nonce from the operating system's CSPRNG (via RAND_bytes).
// Errors: kInternal when the generator is not seeded.
Result<Nonce> FreshNonce();

// Whether two MACs are equal, in time independent of where they differ.
bool SameMac(const Mac& a, const Mac& b);

class SharedSecret {
 public:
  // Errors: kInvalidArgument when `key` is shorter than kMinSecretBytes.
  static Result<SharedSecret> Create(std::string_view key);

  SharedSecret(SharedSecret&& other) noexcept;
  SharedSecret& operator=(SharedSecret&& other) noexcept;
  SharedSecret(const SharedSecret&) = delete;
  SharedSecret& operator=(const SharedSecret&) = delete;
  ~SharedSecret();

  // HMAC-SHA256 of the concatenation of `parts`.
  Mac Sign(std::initializer_list<std::span<const uint8_t>> parts) const;

 private:
  explicit SharedSecret(std::string key) : key_(std::move(key)) {}
  void Wipe();

  std::string key_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_SHARED_SECRET_H_
