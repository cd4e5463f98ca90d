// --secret-file: the engine's shared secret (EngineOptions::secret), read
// from a file that only its owner may read, as ssh treats a private key.
#ifndef XFER_CLI_SECRET_FILE_H_
#define XFER_CLI_SECRET_FILE_H_

#include <string>

#include "xfer/status.h"

namespace xfer::cli {

// The file's bytes, less one trailing newline. Errors (kInvalidArgument,
// naming the file): it cannot be opened or is not a regular file; group
// or others may read or write it (the message says `chmod 600`); someone
// other than this user or root owns it; it is empty, shorter than 16
// bytes, or longer than 4 KiB.
Result<std::string> ReadSecretFile(const std::string& path);

}  // namespace xfer::cli

#endif  // XFER_CLI_SECRET_FILE_H_
