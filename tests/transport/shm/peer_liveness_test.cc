// A peer killed in the middle of a copy leaves that copy counted in our
// revocation table forever. Its exit must end a revocation's wait at once
// (a dead process's copies cannot land), while a live peer's stalled copy
// still holds the revocation to its deadline.
#include "transport/shm/peer_liveness.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "transport/shm/revocation_table.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;
using transport::LocalRegionView;
using transport::shm::PeerLiveness;
using transport::shm::RevocationTable;

TEST(PeerLivenessTest, SeesAProcessExitOnlyOnceItHasExited) {
  int hold[2];
  ASSERT_EQ(pipe(hold), 0);
  const pid_t child = fork();
  if (child == 0) {
    char byte = 0;
    (void)read(hold[0], &byte, 1);  // lives until killed
    _exit(0);
  }
  close(hold[0]);
  const PeerLiveness peer = PeerLiveness::Watch(child);
  EXPECT_FALSE(peer.Exited());
  kill(child, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!peer.Exited() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(peer.Exited()) << "not seen before the child was reaped";
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(peer.Exited());
  close(hold[1]);
}

TEST(PeerLivenessTest, AnUnknownPeerIsNeverSeenToExit) {
  EXPECT_FALSE(PeerLiveness().Exited());
  EXPECT_FALSE(PeerLiveness::Watch(0).Exited());
  EXPECT_FALSE(PeerLiveness::Watch(-1).Exited());
}

// A table whose only region has one copy counted, as a peer killed
// between BeginCopy and EndCopy leaves it.
RevocationTable TableWithAStrandedCopy() {
  uint8_t memory[64];
  const LocalRegionView view{7, memory, sizeof(memory), Access::kRemoteReadWrite};
  auto table = RevocationTable::Create(std::span(&view, 1));
  EXPECT_TRUE(table.ok());
  EXPECT_TRUE(transport::shm::BeginCopy(table->slot(0)));
  return std::move(*table);
}

TEST(PeerLivenessTest, ADeadPeersStrandedCopyDoesNotHoldARevocation) {
  const RevocationTable table = TableWithAStrandedCopy();
  const auto start = std::chrono::steady_clock::now();
  // Far from the deadline, with room for a loaded (sanitizer) CI machine:
  // waiting for the stranded copy would take the whole 30 s.
  EXPECT_TRUE(table.RevokeAll(Deadline::After(30s), [] { return true; }).ok());
  EXPECT_TRUE(table.Revoke(7, Deadline::After(30s), [] { return true; }).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(PeerLivenessTest, ALivePeersStalledCopyHoldsARevocationToItsDeadline) {
  const RevocationTable table = TableWithAStrandedCopy();
  const auto start = std::chrono::steady_clock::now();
  const Status status = table.Revoke(7, Deadline::After(200ms), [] { return false; });
  EXPECT_EQ(status.code(), StatusCode::kTimeout) << status.ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
}

TEST(PeerLivenessTest, ARevocationByCloseIsToldApartFromADeregistration) {
  uint8_t memory[2][64];
  const LocalRegionView views[] = {{7, memory[0], 64, Access::kRemoteReadWrite},
                                   {8, memory[1], 64, Access::kRemoteReadWrite}};
  auto table = RevocationTable::Create(views);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->Revoke(7, Deadline::After(5s), [] { return false; }).ok());
  EXPECT_FALSE(transport::shm::BeginCopy(table->slot(0)));
  EXPECT_FALSE(transport::shm::RevokedByClose(table->slot(0)));  // deregistered
  EXPECT_TRUE(transport::shm::BeginCopy(table->slot(1)));
  transport::shm::EndCopy(table->slot(1));
  ASSERT_TRUE(table->RevokeAll(Deadline::After(5s), [] { return false; }).ok());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(transport::shm::BeginCopy(table->slot(i)));
    EXPECT_TRUE(transport::shm::RevokedByClose(table->slot(i)));  // the connection is closing
  }
}

}  // namespace
}  // namespace xfer::testing
