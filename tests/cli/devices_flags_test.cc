// `xfer devices` flags: -d/--ib-dev and --json in every spelling, help, and
// the usage errors.
#include "cli/devices_flags.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/parse_test_util.h"

namespace xfer::cli {
namespace {

using Action = ParsedCommand::Action;
using testing_util::Parse;

TEST(DevicesFlags, NoFlagsListsEveryDevice) {
  Result<ParsedCommand> parsed = Parse("devices");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->action, Action::kDevices);
  EXPECT_EQ(parsed->devices.device, "");
  EXPECT_EQ(parsed->devices.json_path, "");
}

TEST(DevicesFlags, DeviceAndJsonInEverySpelling) {
  for (const char* command :
       {"devices -d rxe1 --json out.json", "devices --ib-dev rxe1 --json=out.json",
        "devices -drxe1 --json out.json", "devices --json out.json --ib-dev=rxe1"}) {
    Result<ParsedCommand> parsed = Parse(command);
    ASSERT_TRUE(parsed.ok()) << command << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->action, Action::kDevices) << command;
    EXPECT_EQ(parsed->devices.device, "rxe1") << command;
    EXPECT_EQ(parsed->devices.json_path, "out.json") << command;
  }
}

TEST(DevicesFlags, UnknownFlagIsAUsageErrorNamingIt) {
  Result<ParsedCommand> parsed = Parse("devices -d rxe0 --bogus");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "unknown option '--bogus' (see 'xfer devices --help')");
  // perftest test flags do not leak into `devices`.
  parsed = Parse("devices -s 64");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "unknown option '-s' (see 'xfer devices --help')");
}

TEST(DevicesFlags, MissingEmptyAndRepeatedValuesNameTheFlag) {
  struct Case {
    const char* command;
    const char* message;
  };
  for (const Case& c : {Case{"devices -d", "-d/--ib-dev: missing value"},
                        Case{"devices --json", "--json: missing value"},
                        Case{"devices --json=", "--json: empty value"},
                        Case{"devices -d rxe0 --ib-dev rxe1",
                             "-d/--ib-dev: Duplicated argument"},
                        Case{"devices rxe0",
                             "devices: unexpected argument 'rxe0' (use -d "
                             "NAME to pick a device)"}}) {
    Result<ParsedCommand> parsed = Parse(c.command);
    ASSERT_FALSE(parsed.ok()) << c.command;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << c.command;
    EXPECT_EQ(parsed.status().message(), c.message) << c.command;
  }
}

TEST(DevicesFlags, HelpWinsAndTopLevelHelpMentionsDevices) {
  for (const char* command : {"devices -h", "devices --bogus --help"}) {
    Result<ParsedCommand> parsed = Parse(command);
    ASSERT_TRUE(parsed.ok()) << command << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->action, Action::kHelp);
    EXPECT_EQ(parsed->help_text, DevicesHelp());
    EXPECT_NE(parsed->help_text.find("--ib-dev=<dev>"), std::string::npos);
  }
  Result<ParsedCommand> top = Parse("--help");
  ASSERT_TRUE(top.ok());
  EXPECT_NE(top->help_text.find("xfer devices [-d <dev>] [--json <file>]"),
            std::string::npos)
      << top->help_text;
}

}  // namespace
}  // namespace xfer::cli
