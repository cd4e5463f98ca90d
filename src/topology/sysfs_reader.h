// SysfsReader: reads /sys and /proc under a root directory, so that tests run
// on recorded trees ("/" on a live host).
//
// Paths passed in are absolute system paths ("/sys/class/net/eth0/speed");
// the reader prefixes its root. Symbolic links inside a recorded tree must be
// relative (as the kernel's are), so that they resolve inside the root.
// Every read gives a value or the reason it is unknown (missing file,
// permission denied, EINVAL as a down netdev's speed gives, empty file, a
// value of -1), never a default. Thread-compatible; holds no mutable state.
#ifndef XFER_TOPOLOGY_SYSFS_READER_H_
#define XFER_TOPOLOGY_SYSFS_READER_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/reading.h"

namespace xfer::topology {

class SysfsReader {
 public:
  explicit SysfsReader(std::filesystem::path root = "/");

  const std::filesystem::path& root() const { return root_; }

  // The file's first line, trailing whitespace removed. Unknown when the
  // file is missing, cannot be read (the reason names errno: "permission
  // denied", "read fails with EINVAL (...)") or is empty.
  Reading<std::string> ReadText(std::string_view path) const;

  // The whole file. Unknown as ReadText, but never for being empty.
  Reading<std::string> ReadAll(std::string_view path) const;

  // The value on the first line of the file that reads "<key>:" or
  // "<key><blanks>:" ("MemTotal:  16384 kB" in /proc/meminfo, "model
  // name\t: ..." in /proc/cpuinfo), blanks trimmed. Unknown as ReadText,
  // and when no line has the key or its value is empty.
  Reading<std::string> ReadField(std::string_view path, std::string_view key) const;

  // An integer (decimal, or hex with 0x as sysfs prints PCI ids). Unknown as
  // ReadText, when the text is no integer, and when it is -1 (the kernel's
  // "does not know": netdev speed, numa_node).
  Reading<int64_t> ReadInteger(std::string_view path) const;

  // Names in a directory, sorted; empty when it is absent or unreadable.
  std::vector<std::string> List(std::string_view path) const;

  bool Exists(std::string_view path) const;

  // The path with every symbolic link resolved, as a system path below the
  // root ("/sys/devices/pci0000:00/..."); nullopt when it does not exist or
  // resolves outside the root.
  std::optional<std::string> Resolve(std::string_view path) const;

 private:
  std::filesystem::path Full(std::string_view path) const;

  std::filesystem::path root_;
};

// The number in a "/proc" size such as "16384 kB" (the kernel's kB there
// are KiB, 2^10 bytes); unknown when `text` is, or is no such size.
Reading<int64_t> KibibytesOf(const Reading<std::string>& text);

// The parent of a system path ("/a/b" -> "/a"; "/" -> "/").
std::string ParentPath(std::string_view path);
// The last component ("/a/b" -> "b").
std::string BaseName(std::string_view path);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_SYSFS_READER_H_
