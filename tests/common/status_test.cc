// include/xfer/status.h: the value every libxfer call returns.
#include "xfer/status.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace xfer {
namespace {

TEST(Status, DefaultIsOkWithoutAMessage) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.ToString(), "ok");
  EXPECT_FALSE(Status::InProgress().ok());
  EXPECT_EQ(Status::InProgress().ToString(), "in progress");
}

TEST(Status, ToStringIsTheCodesNameThenTheMessage) {
  EXPECT_EQ(OutOfRange("entry 3 ends past the region").ToString(),
            "out of range: entry 3 ends past the region");
  EXPECT_EQ(Status(StatusCode::kTimeout, "").ToString(), "timeout");
}

TEST(Status, EveryCodeHasItsOwnStableName) {
  std::set<std::string_view> names;
  for (int code = 0; code <= static_cast<int>(StatusCode::kInternal); ++code) {
    const std::string_view name = StatusCodeName(static_cast<StatusCode>(code));
    EXPECT_NE(name, "unknown status") << code;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kConnectionLost), "connection lost");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(200)), "unknown status");
}

TEST(Status, CopiesAndMovesKeepCodeAndMessage) {
  const Status original = PermissionDenied("region 7 is read-only");
  Status copy = original;
  EXPECT_EQ(copy.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(copy.message(), "region 7 is read-only");
  Status assigned;
  assigned = copy;
  EXPECT_EQ(assigned.message(), original.message());
  Status moved = std::move(copy);
  EXPECT_EQ(moved.message(), "region 7 is read-only");
  assigned = Status::Ok();  // frees the old message (ASan checks the ownership)
  EXPECT_TRUE(assigned.ok());
  assigned = std::move(moved);
  EXPECT_EQ(assigned.ToString(), original.ToString());
  Status& self = assigned;
  assigned = self;  // self-assignment keeps the message
  EXPECT_EQ(assigned.message(), "region 7 is read-only");
}

TEST(Status, WithContextPrefixesTheMessageAndLeavesOkAlone) {
  EXPECT_EQ(Timeout("no reply").WithContext("peer 3").ToString(), "timeout: peer 3: no reply");
  EXPECT_EQ(Status(StatusCode::kIoError, "").WithContext("bind").message(), "bind");
  EXPECT_TRUE(Status::Ok().WithContext("anything").ok());
  EXPECT_EQ(Status::Ok().WithContext("anything").message(), "");
}

Result<int> Half(int n) {
  if (n % 2 != 0) return InvalidArgument("odd");
  return n / 2;
}

Status HalveTwice(int n, int& out) {
  Result<int> once = Half(n);
  XFER_RETURN_IF_ERROR(once.status());
  Result<int> twice = Half(*once);
  XFER_RETURN_IF_ERROR(twice.status().WithContext("second half"));
  out = *twice;
  return Status::Ok();
}

TEST(Result, HoldsAValueOrAnError) {
  const Result<int> value = Half(8);
  ASSERT_TRUE(value.ok());
  EXPECT_TRUE(static_cast<bool>(value));
  EXPECT_EQ(*value, 4);
  EXPECT_TRUE(value.status().ok());
  const Result<int> error = Half(3);
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.status().ToString(), "invalid argument: odd");

  Result<std::string> text = std::string("moved out");
  EXPECT_EQ(text->size(), 9u);
  const std::string taken = std::move(text).value();
  EXPECT_EQ(taken, "moved out");
}

TEST(Result, ReturnIfErrorStopsAtTheFirstFailure) {
  int out = -1;
  EXPECT_TRUE(HalveTwice(8, out).ok());
  EXPECT_EQ(out, 2);
  out = -1;
  EXPECT_EQ(HalveTwice(3, out).message(), "odd");
  EXPECT_EQ(HalveTwice(6, out).message(), "second half: odd");
  EXPECT_EQ(out, -1);
}

}  // namespace
}  // namespace xfer

namespace xfer {
namespace {

// Issue 43, item 5: the value of an error Result is a contract violation
// that ends the process with the error, in every build; no exception
// (std::bad_variant_access) crosses the API.
TEST(ResultDeathTest, TheValueOfAnErrorAbortsNamingTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Result<int> error = NotFound("no peer 7");
  EXPECT_DEATH((void)error.value(), "Result::value\\(\\) called on an error: not found: no peer 7");
  Result<std::string> moved = InvalidArgument("bad size");
  EXPECT_DEATH((void)std::move(moved).value(), "invalid argument: bad size");
  EXPECT_DEATH((void)moved->size(), "bad size");
}

}  // namespace
}  // namespace xfer
