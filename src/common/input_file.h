// Reading a file a user names (a run to report or judge): the whole file,
// or an error that says what is wrong with the path itself ("is a
// directory", "no such file", "permission denied") before anyone tries to
// parse what is not there.
#ifndef XFER_COMMON_INPUT_FILE_H_
#define XFER_COMMON_INPUT_FILE_H_

#include <cstddef>
#include <string>

#include "xfer/status.h"

namespace xfer {

// The largest run file xfer reads (report, compare, doctor --run): a matrix
// with every sample of thousands of cells stays far below it.
inline constexpr size_t kMaxRunFileBytes = size_t{1} << 30;

// The bytes of `path`, at most `max_bytes`. Errors: kInvalidArgument
// "<path>: is a directory", "<path>: is not a regular file" (a FIFO, a
// device: the read would block or never end); kIoError "<path>: cannot
// read it: <reason>" (missing, not permitted); kResourceExhausted "<path>:
// larger than <max_bytes> bytes".
Result<std::string> ReadInputFile(const std::string& path, size_t max_bytes);

// OK when `path` is a directory. Errors: kInvalidArgument "<flag> <path>:
// is not a directory" (a file is there) or "<flag> <path>: no such
// directory".
Status CheckInputDirectory(const std::string& flag, const std::string& path);

}  // namespace xfer

#endif  // XFER_COMMON_INPUT_FILE_H_
