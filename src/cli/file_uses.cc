#include "cli/file_uses.h"

#include <fmt/format.h>

#include "common/output_file.h"

namespace xfer::cli {
namespace {

void AddIfGiven(std::vector<FileUse>& uses, std::string flag, const std::string& path) {
  if (!path.empty()) uses.push_back({std::move(flag), path});
}

void AddMatrixFiles(const matrix::MatrixConfig& config, const std::string& secret_file,
                    FileUses& uses) {
  AddIfGiven(uses.reads, "--secret-file", secret_file);
  AddIfGiven(uses.writes, "--json", config.json_path);
  AddIfGiven(uses.writes, "--csv", config.csv_path);
  AddIfGiven(uses.writes, "--markdown", config.markdown_path);
}

// The folders `xfer doctor` reads below its root: the whole of a root the
// user gave (a copy of a host's files), or the kernel's own /sys and /proc.
void AddDoctorFolders(const std::string& sysfs_root, FileUses& uses) {
  if (sysfs_root.empty()) return;
  if (sysfs_root != "/") {
    uses.read_folders.push_back({"--sysfs-root", sysfs_root});
    return;
  }
  uses.read_folders.push_back({"--sysfs-root", "/sys"});
  uses.read_folders.push_back({"--sysfs-root", "/proc"});
}

}  // namespace

FileUses FileUsesOf(const ParsedCommand& command) {
  using Action = ParsedCommand::Action;
  FileUses uses;
  switch (command.action) {
    case Action::kRun:
      AddIfGiven(uses.reads, "--secret-file", command.secret_file);
      AddIfGiven(uses.writes, "--json", command.params.json_path);
      break;
    case Action::kMatrix: AddMatrixFiles(command.matrix, command.secret_file, uses); break;
    case Action::kCluster: AddMatrixFiles(command.cluster.matrix, command.secret_file, uses); break;
    case Action::kDevices: AddIfGiven(uses.writes, "--json", command.devices.json_path); break;
    case Action::kDoctor:
      AddIfGiven(uses.reads, "--run", command.doctor.run_path);
      AddIfGiven(uses.reads, "--nic-map", command.doctor.nic_map_path);
      AddDoctorFolders(command.doctor.sysfs_root, uses);
      AddIfGiven(uses.writes, "--json", command.doctor.json_path);
      break;
    case Action::kReport:
      for (const std::string& run : command.report.runs) uses.reads.push_back({"the run", run});
      AddIfGiven(uses.writes, "-o/--output", command.report.output);
      break;
    case Action::kCompare:
      uses.reads.push_back({"the run", command.compare.a});
      uses.reads.push_back({"the run", command.compare.b});
      break;
    case Action::kHelp:
    case Action::kVersion: break;
  }
  return uses;
}

Status CheckOutputsSpareInputs(const FileUses& uses) {
  for (const FileUse& output : uses.writes) {
    if (output.path == "-") continue;
    for (const FileUse& input : uses.reads) {
      if (!SameFile(output.path, input.path)) continue;
      return InvalidArgument(fmt::format(
          "{} {}: is the file {} {} that this command reads; writing there would destroy it: "
          "name another file",
          output.flag, output.path, input.flag, input.path));
    }
    for (const FileUse& folder : uses.read_folders) {
      if (!WithinTree(output.path, folder.path)) continue;
      return InvalidArgument(fmt::format(
          "{} {}: is inside {} {}, whose files this command reads: name a file elsewhere",
          output.flag, output.path, folder.flag, folder.path));
    }
  }
  return Status::Ok();
}

}  // namespace xfer::cli
