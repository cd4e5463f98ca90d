#include "perftest/wire_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

namespace xfer::perftest {
namespace {

Status WrongSize(std::string_view what, size_t got, size_t want) {
  return ProtocolError(fmt::format("perftest {} message: {} bytes, expected {}", what, got, want));
}

// The text before the first NUL, or an error when there is none.
Result<std::string_view> TerminatedText(std::span<const uint8_t> bytes, std::string_view what) {
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  const auto* nul = static_cast<const char*>(std::memchr(begin, '\0', bytes.size()));
  if (nul == nullptr) return ProtocolError(fmt::format("perftest {} message is not terminated", what));
  return std::string_view(begin, static_cast<size_t>(nul - begin));
}

// One hex field of exactly `digits` characters (perftest's %0Nx), whose
// value must fit `bits`.
Result<uint64_t> HexField(std::string_view field, size_t digits, int bits) {
  if (field.size() != digits) {
    return ProtocolError(fmt::format("perftest key message: field '{}' is not {} hex digits",
                                     field, digits));
  }
  uint64_t value = 0;
  auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value, 16);
  if (error != std::errc() || end != field.data() + field.size()) {
    return ProtocolError(fmt::format("perftest key message: field '{}' is not hex", field));
  }
  if (bits < 64 && value >> bits != 0) {
    return ProtocolError(fmt::format("perftest key message: field '{}' exceeds {} bits", field, bits));
  }
  return value;
}

std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (;;) {
    const size_t colon = text.find(':', start);
    if (colon == std::string_view::npos) {
      fields.push_back(text.substr(start));
      return fields;
    }
    fields.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
}

template <size_t N>
std::array<uint8_t, N> BigEndianBytes(uint64_t value) {
  std::array<uint8_t, N> out{};
  for (size_t i = 0; i < N; ++i) {
    out[N - 1 - i] = static_cast<uint8_t>(value >> (8 * i));
  }
  return out;
}

uint64_t FromBigEndian(std::span<const uint8_t> bytes) {
  uint64_t value = 0;
  for (uint8_t byte : bytes) value = (value << 8) | byte;
  return value;
}

}  // namespace

std::array<uint8_t, kVersionSize> EncodeVersion(std::string_view text) {
  std::array<uint8_t, kVersionSize> out{};
  std::copy_n(text.begin(), std::min(text.size(), kVersionSize), out.begin());
  return out;
}

Result<PeerVersion> DecodeVersion(std::span<const uint8_t> bytes) {
  if (bytes.size() != kVersionSize) return WrongSize("version", bytes.size(), kVersionSize);
  // strncpy leaves no NUL for a 16-character version; accept that too.
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  const size_t length = strnlen(begin, kVersionSize);
  std::string text(begin, length);
  double number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    std::string shown;
    for (char c : text) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return ProtocolError(fmt::format(
        "the peer's version '{}' is not a perftest version number; is it a perftest peer?", shown));
  }
  return PeerVersion{std::move(text), number};
}

std::array<uint8_t, 4> EncodeInt32(int32_t value) {
  return BigEndianBytes<4>(static_cast<uint32_t>(value));
}

Result<int32_t> DecodeInt32(std::span<const uint8_t> bytes) {
  if (bytes.size() != 4) return WrongSize("system data", bytes.size(), 4);
  return static_cast<int32_t>(static_cast<uint32_t>(FromBigEndian(bytes)));
}

size_t MtuMessageSize(double peer_version) { return peer_version >= 5.31 ? 2 : 4; }

std::vector<uint8_t> EncodeMtu(int mtu_code, size_t message_size) {
  std::vector<uint8_t> out(message_size, 0);
  const std::string text = std::to_string(mtu_code);
  std::copy_n(text.begin(), std::min(text.size(), message_size - 1), out.begin());
  return out;
}

Result<int> DecodeMtu(std::span<const uint8_t> bytes) {
  if (bytes.size() != 2 && bytes.size() != 4) return WrongSize("MTU", bytes.size(), 2);
  const uint8_t digit = bytes[0];
  const bool terminated = std::find(bytes.begin(), bytes.end(), 0) != bytes.end();
  if (!terminated || digit < '1' || digit > '5' || bytes[1] != 0) return 0;
  return digit - '0';
}

std::vector<uint8_t> EncodeKeyMessage(const bench::QpAddress& address) {
  std::string text = fmt::format("{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}", address.lid,
                                 address.out_reads, address.qpn, address.psn, address.rkey,
                                 address.vaddr);
  if (address.gid) {
    for (uint8_t byte : *address.gid) text += fmt::format(":{:02x}", byte);
    text += ":00000000:";
  } else {
    text += ":00000000";
  }
  std::vector<uint8_t> out(text.begin(), text.end());
  out.push_back(0);
  return out;
}

Result<bench::QpAddress> DecodeKeyMessage(std::span<const uint8_t> bytes, bool with_gid) {
  const size_t expected = with_gid ? kKeyMessageGidSize : kKeyMessageSize;
  if (bytes.size() != expected) return WrongSize("key", bytes.size(), expected);
  auto text = TerminatedText(bytes, "key");
  if (!text.ok()) return text.status();
  std::vector<std::string_view> fields = SplitColons(*text);
  // 7 fields without a GID; 6 + 16 GID bytes + srqn + the empty tail with.
  const size_t want_fields = with_gid ? 6 + 16 + 2 : 7;
  if (fields.size() != want_fields || (with_gid && !fields.back().empty())) {
    return ProtocolError(fmt::format("perftest key message '{}' does not have {} fields", *text,
                                     with_gid ? "6 + 16 GID bytes + 1" : "7"));
  }
  bench::QpAddress address;
  auto lid = HexField(fields[0], 4, 16);
  auto out_reads = HexField(fields[1], 4, 16);
  auto qpn = HexField(fields[2], 6, 24);
  auto psn = HexField(fields[3], 6, 24);
  auto rkey = HexField(fields[4], 8, 32);
  auto vaddr = HexField(fields[5], 16, 64);
  for (const auto* field : {&lid, &out_reads, &qpn, &psn, &rkey, &vaddr}) {
    if (!field->ok()) return field->status();
  }
  address.lid = static_cast<uint16_t>(*lid);
  address.out_reads = static_cast<uint32_t>(*out_reads);
  address.qpn = static_cast<uint32_t>(*qpn);
  address.psn = static_cast<uint32_t>(*psn);
  address.rkey = static_cast<uint32_t>(*rkey);
  address.vaddr = *vaddr;
  if (with_gid) {
    std::array<uint8_t, 16> gid{};
    for (size_t i = 0; i < gid.size(); ++i) {
      auto byte = HexField(fields[6 + i], 2, 8);
      if (!byte.ok()) return byte.status();
      gid[i] = static_cast<uint8_t>(*byte);
    }
    address.gid = gid;
  }
  auto srqn = HexField(fields[with_gid ? 22 : 6], 8, 32);
  if (!srqn.ok()) return srqn.status();
  return address;
}

std::array<uint8_t, 8> EncodeU64(uint64_t value) { return BigEndianBytes<8>(value); }

std::array<uint8_t, 8> EncodeDouble(double value) {
  return BigEndianBytes<8>(std::bit_cast<uint64_t>(value));
}

Result<uint64_t> DecodeU64(std::span<const uint8_t> bytes) {
  if (bytes.size() != 8) return WrongSize("report", bytes.size(), 8);
  return FromBigEndian(bytes);
}

Result<double> DecodeDouble(std::span<const uint8_t> bytes) {
  if (bytes.size() != 8) return WrongSize("report", bytes.size(), 8);
  return std::bit_cast<double>(FromBigEndian(bytes));
}

}  // namespace xfer::perftest
