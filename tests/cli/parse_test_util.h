// Helpers for the CLI tests: run ParseCommandLine on a command written as
// one string, the way a shell would split it on spaces.
#ifndef XFER_TESTS_CLI_PARSE_TEST_UTIL_H_
#define XFER_TESTS_CLI_PARSE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"

namespace xfer::cli::testing_util {

// "write_bw -s 64 host" -> {"write_bw", "-s", "64", "host"}.
inline std::vector<std::string> Split(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Parses `xfer <words...>`.
inline Result<ParsedCommand> ParseWords(const std::vector<std::string>& words,
                                        const ParserConfig& config = {}) {
  std::vector<const char*> argv{"xfer"};
  for (const std::string& word : words) argv.push_back(word.c_str());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data(), config);
}

inline Result<ParsedCommand> Parse(const std::string& command,
                                   const ParserConfig& config = {}) {
  return ParseWords(Split(command), config);
}

// Parses a command that must succeed with Action::kRun; its parameters.
inline bench::BenchParams ParseRun(const std::string& command, const ParserConfig& config = {}) {
  Result<ParsedCommand> parsed = Parse(command, config);
  EXPECT_TRUE(parsed.ok()) << command << ": " << parsed.status().ToString();
  if (!parsed.ok()) return {};
  EXPECT_EQ(parsed->action, ParsedCommand::Action::kRun) << command;
  return parsed->params;
}

inline bool HasNoteContaining(const bench::BenchParams& params,
                              const std::string& part) {
  for (const std::string& note : params.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

// A valid secret file (mode 600, 32 bytes) for --secret-file, written once
// per process under $TMPDIR.
inline std::string SecretFile() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/xfer-cli-secret-" +
                           std::to_string(::getpid());
  static const bool written = [&path] {
    std::ofstream(path) << "0123456789abcdef0123456789abcdef\n";
    return ::chmod(path.c_str(), 0600) == 0;
  }();
  EXPECT_TRUE(written) << path;
  return path;
}

}  // namespace xfer::cli::testing_util

#endif  // XFER_TESTS_CLI_PARSE_TEST_UTIL_H_
