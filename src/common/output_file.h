// Where xfer writes what a user asked for by path (-o, --json, --csv,
// --markdown): the nature of the path decides how, so that writing a report
// never replaces something that is not a report.
//
//   "-"                        standard output
//   a regular file, or nothing a temporary file beside it, fsynced and
//                              renamed over it once complete: a reader sees
//                              the old file or the new one, never half, and
//                              a failed write leaves the old one
//   a symbolic link            followed, chains too: its final target is
//                              written as above and the link stays a link
//   a FIFO, a device, a socket written through as a stream, every write
//   (or a link to one, such    checked (/dev/full fails; a FIFO without a
//   as /dev/stdout)            reader is an error, not a wait)
//   a directory                refused
//
// Links through /proc (/dev/stdout, /dev/fd/N) are always streams: they name
// an open file, which a rename would not reach.
#ifndef XFER_COMMON_OUTPUT_FILE_H_
#define XFER_COMMON_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "xfer/status.h"

namespace xfer {

enum class OutputMode {
  kStdout,   // "-"
  kReplace,  // a temporary file renamed over `write_path`
  kStream,   // opened and written through
};

struct OutputTarget {
  std::string path;        // as the user gave it, for messages
  std::string write_path;  // kReplace: the link's final target; else `path`
  OutputMode mode = OutputMode::kReplace;
};

// Decides how `path` will be written and checks, writing nothing, that it
// can be: kReplace, that a file can be created beside the target; kStream,
// that it opens for writing. Errors: kInvalidArgument "<path>: is a
// directory" (or a link loop); kIoError "<path>: <what>: <reason>".
Result<OutputTarget> PrepareOutput(const std::string& path);

// Writes all of `text` to `target`. Errors: kIoError "<path>: <what>:
// <reason>"; for kReplace the temporary file is removed and the old file is
// left as it was.
Status WriteOutput(const OutputTarget& target, std::string_view text);

// PrepareOutput, then WriteOutput.
Status WriteOutputFile(const std::string& path, std::string_view text);

// True when `a` and `b` name one file: the same inode where both exist,
// else the same final target after following links. For refusing an output
// that would overwrite an input of the same command, or another output.
bool SameFile(const std::string& a, const std::string& b);

// True when writing `output` (its links followed, as WriteOutput follows
// them) would create or replace a file inside the directory `tree` (its
// links followed too), or `output` is `tree` itself. For refusing an
// output inside a folder the command reads, such as doctor's --sysfs-root.
// "-" is inside no tree.
bool WithinTree(const std::string& output, const std::string& tree);

}  // namespace xfer

#endif  // XFER_COMMON_OUTPUT_FILE_H_
