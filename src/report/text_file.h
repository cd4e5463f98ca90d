// Writes a whole text file or nothing: the text goes to a temporary file
// beside `path` that is renamed over it once complete, so a failed or
// interrupted write never leaves a partial file under `path`.
#ifndef XFER_REPORT_TEXT_FILE_H_
#define XFER_REPORT_TEXT_FILE_H_

#include <string>

#include "xfer/status.h"

namespace xfer::report {

// Errors: kIoError "<path>: <call>: <reason>"; the temporary file is removed.
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace xfer::report

#endif  // XFER_REPORT_TEXT_FILE_H_
