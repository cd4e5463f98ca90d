// The exit status of every xfer command, as the README's "Exit status"
// states it: what a script may branch on.
#ifndef XFER_COMMON_EXIT_STATUS_H_
#define XFER_COMMON_EXIT_STATUS_H_

namespace xfer {

inline constexpr int kExitOk = 0;
// The run, or the command's work, failed: a peer died, a transfer failed, a
// file it read was not a run, an output could not be written after the run.
inline constexpr int kExitFailed = 1;
// Bad usage, found before anything ran: a flag, a value, a combination, an
// output path that cannot be written, an output that is one of the inputs.
inline constexpr int kExitUsage = 2;
// Interrupted by SIGINT (128 + 2); another fatal signal is 128 + its number.
inline constexpr int kExitSignalBase = 128;

}  // namespace xfer

#endif  // XFER_COMMON_EXIT_STATUS_H_
