// How a transport reads its TransportOptions (xfer/engine.h) through its
// option table (option_table.h): typed by the table, with errors that name
// the transport, the key and the accepted values, and a check that no key
// outside the table was set (a typo is an error, not a default).
#ifndef XFER_TRANSPORT_OPTION_READER_H_
#define XFER_TRANSPORT_OPTION_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "transport/option_table.h"
#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::transport {

class OptionReader {
 public:
  // All three outlive the reader.
  OptionReader(std::string_view transport, std::span<const OptionSpec> table,
               const TransportOptions& options)
      : transport_(transport), table_(table), options_(options) {}

  // OK when every key set is in the table and its value is what the table
  // allows. Errors: kInvalidArgument naming the transport, the key and the
  // keys it takes or the values the key takes.
  Status Check() const;

  // The value of text option `key`, or nullopt when it is not set.
  // REQUIRES: Check() passed; `key` is in the table.
  std::optional<std::string> Text(std::string_view key) const;
  // The value of integer option `key`, or nullopt when it is not set.
  // REQUIRES: as Text.
  std::optional<uint64_t> Integer(std::string_view key) const;

 private:
  const OptionSpec* Find(std::string_view key) const;
  Status CheckValue(const OptionSpec& spec, const std::string& value) const;

  std::string_view transport_;
  std::span<const OptionSpec> table_;
  const TransportOptions& options_;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_OPTION_READER_H_
