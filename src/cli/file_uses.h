// The files a parsed command reads and the files it writes, by the flags
// that name them, and the one rule between them: no output may be, after
// links, a file the command reads or a file inside a folder it reads. A
// results file written over its run, or over the secret it was given, is
// data lost; the rule runs before anything else does, so a refused command
// leaves every file as it was.
#ifndef XFER_CLI_FILE_USES_H_
#define XFER_CLI_FILE_USES_H_

#include <string>
#include <vector>

#include "cli/flags.h"
#include "xfer/status.h"

namespace xfer::cli {

struct FileUse {
  std::string flag;  // as the messages name it: "--json", "-o/--output", "run"
  std::string path;  // as given
};

struct FileUses {
  std::vector<FileUse> reads;         // files the command reads
  std::vector<FileUse> read_folders;  // folders whose files it reads
  std::vector<FileUse> writes;        // files it writes ("-" is stdout)
};

// What `command` reads and writes, from its parsed fields.
FileUses FileUsesOf(const ParsedCommand& command);

// Errors: kInvalidArgument naming the output, its flag and the input it
// would overwrite ("--json sec: is the file --secret-file reads; write the
// results to another file"), for the first output that is an input or lies
// inside a folder the command reads.
Status CheckOutputsSpareInputs(const FileUses& uses);

}  // namespace xfer::cli

#endif  // XFER_CLI_FILE_USES_H_
