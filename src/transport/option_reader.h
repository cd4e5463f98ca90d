// How a transport reads its TransportOptions (xfer/engine.h): typed, with
// errors that name the transport, the key and the accepted range, and a
// final check that no key went unread (a typo is an error, not a default).
#ifndef XFER_TRANSPORT_OPTION_READER_H_
#define XFER_TRANSPORT_OPTION_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::transport {

class OptionReader {
 public:
  // Both outlive the reader.
  OptionReader(std::string_view transport, const TransportOptions& options)
      : transport_(transport), options_(options) {}

  // The value of `key`, or nullopt when it is not set.
  std::optional<std::string> String(std::string_view key);
  // The value of `key` as a decimal integer in [min, max], or nullopt when
  // it is not set. Errors: kInvalidArgument (not a number, out of range).
  Result<std::optional<uint64_t>> Unsigned(std::string_view key, uint64_t min, uint64_t max);

  // OK when every key set was read. Errors: kInvalidArgument naming the
  // first unknown key and the keys the transport takes.
  Status Finish() const;

 private:
  std::string_view transport_;
  const TransportOptions& options_;
  std::vector<std::string> known_;  // every key asked for, in order
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_OPTION_READER_H_
