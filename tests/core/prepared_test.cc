// Prepared transfer lists (Engine::PrepareTransfers, SubmitPrepared) on
// every transport, direct and staged: exactly the selected entries move,
// the checks left to submission hold, and a list whose memory went away
// (locally, at the peer, with the connection) never moves a byte again.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "support/connected_test_engines.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kListRegion = size_t{1} << 20;
constexpr uint32_t kListEntries = 100;

// Entry i: 100 + 37 * i bytes at offset i * 8192 on both sides, unaligned.
TransferEntry ListEntry(uint8_t* local, uint64_t remote, uint32_t i) {
  return {local + i * 8192 + 3, remote + i * 8192 + 5, size_t{100} + 37 * i};
}

struct ListCase {
  std::string transport;
  DevicePath path;
};

std::vector<ListCase> ListCases() {
  std::vector<ListCase> cases;
  for (const std::string& t : testing::BuiltTransports()) {
    cases.push_back({t, DevicePath::kAuto});
    cases.push_back({t, DevicePath::kStaged});
  }
  return cases;
}

class PreparedListTest : public ::testing::TestWithParam<ListCase>,
                         protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    CreateEngines({.transport = GetParam().transport, .initiator_path = GetParam().path});
    if (HasFatalFailure() || IsSkipped()) return;
    local_ = Allocate(*initiator_, kListRegion);
    spare_ = Allocate(*initiator_, kListRegion);
    remote_ = Allocate(*target_, kListRegion);
    read_only_ = Allocate(*target_, kListRegion, Access::kRemoteRead);
    ASSERT_NO_FATAL_FAILURE(ConnectEngines(2));
    for (uint32_t i = 0; i < kListEntries; ++i) {
      entries_.push_back(ListEntry(local(), Addr(remote_), i));
    }
  }

  static uint64_t Addr(const MemoryRegion& region) {
    return reinterpret_cast<uint64_t>(region.address);
  }
  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }
  uint8_t* remote() { return static_cast<uint8_t*>(remote_.address); }
  // Entry i's bytes on the target side.
  uint8_t* RemoteOf(uint32_t i) { return remote() + (entries_[i].remote - Addr(remote_)); }

  Status Run(Status posted, TransferRequest& request) {
    if (!posted.ok()) return posted;
    return request.Wait(10s);
  }

  MemoryRegion local_, spare_, remote_, read_only_;
  std::vector<TransferEntry> entries_;
};

TEST_P(PreparedListTest, ARangeAndAnIndexListMoveExactlyTheirEntries) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->size(), kListEntries);
  EXPECT_EQ(list->peer(), peer_);
  for (uint32_t i = 0; i < kListEntries; ++i) {
    std::memset(entries_[i].local, static_cast<int>(i + 1), entries_[i].length);
  }
  std::memset(remote(), 0, kListRegion);
  TransferRequest request;
  // Entries 10..29, twice: a list is submitted as often as wanted.
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(
        Run(initiator_->SubmitPrepared(*list, OpCode::kWrite, 10, 20, request), request).ok());
  }
  size_t expected_bytes = 0;
  for (uint32_t i = 10; i < 30; ++i) expected_bytes += entries_[i].length;
  EXPECT_EQ(request.bytes(), expected_bytes);
  for (uint32_t i = 0; i < kListEntries; ++i) {
    const bool selected = i >= 10 && i < 30;
    const uint8_t* r = RemoteOf(i);
    EXPECT_EQ(r[0], selected ? i + 1 : 0) << "entry " << i;
    EXPECT_EQ(r[entries_[i].length - 1], selected ? i + 1 : 0) << "entry " << i;
    EXPECT_EQ(r[entries_[i].length], 0) << "entry " << i << " wrote past its end";
    EXPECT_EQ(r[-1], 0) << "entry " << i << " wrote before its start";
  }
  // READ back entries 99, 0 and 57 (57 twice) into a cleared buffer.
  for (uint32_t i : {0u, 57u, 99u}) std::memset(RemoteOf(i), 0xa0 + static_cast<int>(i % 7), entries_[i].length);
  std::memset(local(), 0, kListRegion);
  const std::vector<uint32_t> indices = {99, 0, 57, 57};
  ASSERT_TRUE(Run(initiator_->SubmitPrepared(*list, OpCode::kRead, indices, request), request).ok());
  for (uint32_t i = 0; i < kListEntries; ++i) {
    const bool selected = i == 0 || i == 57 || i == 99;
    const auto* l = static_cast<const uint8_t*>(entries_[i].local);
    EXPECT_EQ(l[0], selected ? 0xa0 + i % 7 : 0) << "entry " << i;
    EXPECT_EQ(l[entries_[i].length - 1], selected ? 0xa0 + i % 7 : 0) << "entry " << i;
  }
}

TEST_P(PreparedListTest, SelectionsOutsideTheListAndBadHandlesAreRefusedUntouched) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  ASSERT_TRUE(list.ok());
  TransferRequest request;
  auto refused = [&](Status status) { return status.code() == StatusCode::kInvalidArgument; };
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 0, request)));
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(*list, OpCode::kWrite, 90, 11, request)));
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(*list, OpCode::kWrite, 100, 1, request)));
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(*list, OpCode::kWrite, UINT32_MAX, 2, request)));
  // An empty index list selects nothing; it never means "every entry".
  Status none = initiator_->SubmitPrepared(*list, OpCode::kWrite, std::span<const uint32_t>(),
                                           request);
  EXPECT_TRUE(refused(none));
  EXPECT_NE(none.message().find("empty index list"), std::string::npos) << none.ToString();
  const std::vector<uint32_t> outside = {3, 100};
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(*list, OpCode::kWrite, outside, request)));
  EXPECT_TRUE(refused(initiator_->SubmitPrepared(PreparedTransfers(), OpCode::kWrite, 0, 1, request)));
  EXPECT_TRUE(request.Test().ok()) << "a refused submission armed its request";
  // Preparation checks what Submit checks.
  EXPECT_EQ(initiator_->PrepareTransfers(peer_, {}).status().code(), StatusCode::kInvalidArgument);
  const TransferEntry stray{local(), Addr(remote_) + kListRegion - 8, 16};
  EXPECT_EQ(initiator_->PrepareTransfers(peer_, std::span(&stray, 1)).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(initiator_->PrepareTransfers(peer_ + 1000, entries_).status().code(),
            StatusCode::kNotFound);
}

TEST_P(PreparedListTest, TheOpsAccessIsCheckedAtSubmission) {
  const TransferEntry entry{local(), Addr(read_only_), 4096};
  auto list = initiator_->PrepareTransfers(peer_, std::span(&entry, 1));
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  TransferRequest request;
  EXPECT_EQ(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 1, request).code(),
            StatusCode::kPermissionDenied);
  EXPECT_TRUE(Run(initiator_->SubmitPrepared(*list, OpCode::kRead, 0, 1, request), request).ok());
}

TEST_P(PreparedListTest, DeregisteringALocalRegionInvalidatesOnlyTheListsThatUseIt) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  const TransferEntry other{spare_.address, Addr(remote_), 64};
  auto untouched = initiator_->PrepareTransfers(peer_, std::span(&other, 1));
  ASSERT_TRUE(list.ok() && untouched.ok());
  ASSERT_TRUE(initiator_->DeregisterMemory(local_).ok());
  TransferRequest request;
  Status refused = initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 1, request);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition) << refused.ToString();
  EXPECT_NE(refused.message().find("deregistered"), std::string::npos) << refused.ToString();
  EXPECT_TRUE(request.Test().ok());
  EXPECT_TRUE(
      Run(initiator_->SubmitPrepared(*untouched, OpCode::kWrite, 0, 1, request), request).ok());
  // For good, even once the address is registered again.
  auto again = initiator_->RegisterMemory(local_.address, 4096, {});
  if (again.ok()) {
    EXPECT_EQ(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 1, request).code(),
              StatusCode::kFailedPrecondition);
  }
}

// The peer's deregistration: no submission of the list ever moves a byte
// into the region again (how each transport learns of it differs).
TEST_P(PreparedListTest, APeersRevocationFailsEverySubmissionAfterIt) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(target_->DeregisterMemory(remote_).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {
    TransferRequest request;
    Status outcome = Run(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 5, request), request);
    EXPECT_FALSE(outcome.ok()) << "attempt " << attempt << " moved bytes into a revoked region";
  }
}

TEST_P(PreparedListTest, AListOutlivingItsConnectionIsRefused) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(initiator_->Disconnect(peer_).ok());
  TransferRequest request;
  EXPECT_EQ(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, 1, request).code(),
            StatusCode::kNotFound);
}

TEST_P(PreparedListTest, ASubmissionCarriesItsNotificationBehindItsBytes) {
  auto list = initiator_->PrepareTransfers(peer_, entries_);
  ASSERT_TRUE(list.ok());
  for (uint32_t i = 0; i < kListEntries; ++i) std::memset(entries_[i].local, 0x5a, entries_[i].length);
  std::memset(remote(), 0, kListRegion);
  SubmitOptions options;
  options.notification = "list done";
  TransferRequest request;
  ASSERT_TRUE(initiator_->SubmitPrepared(*list, OpCode::kWrite, 0, kListEntries, request, options)
                  .ok());
  auto got = target_->GetNotifications(10s);
  bool landed = true;
  for (uint32_t i = 0; i < kListEntries; ++i) {
    landed = landed && RemoteOf(i)[0] == 0x5a && RemoteOf(i)[entries_[i].length - 1] == 0x5a;
  }
  ASSERT_TRUE(request.Wait(10s).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "list done");
  EXPECT_TRUE(landed) << "the notification overtook the list's bytes";
}

INSTANTIATE_TEST_SUITE_P(
    Transports, PreparedListTest, ::testing::ValuesIn(ListCases()),
    [](const auto& param_info) {
      return param_info.param.transport +
             (param_info.param.path == DevicePath::kStaged ? "_staged" : "");
    });

}  // namespace
}  // namespace xfer
