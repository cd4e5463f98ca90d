// LinkWatch against the real kernel: in a network namespace of its own (a
// forked child, so that this process's loopback stays where it is), a veth
// pair is taken down and the watch must hear it: the end set down as
// "down", its peer as "up but not running (no carrier)", by name; nothing
// for an interface no one watches, and nothing after a subscription ends.
// Needs root (unshare, ip link); skipped without it.
#include "transport/tcp/link_watch.h"

#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace xfer::transport::tcp {
namespace {

using namespace std::chrono_literals;

// What one subscription heard.
struct Heard {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> events;  // "name: state"

  LinkWatch::OnDown Callback() {
    return [this](std::string_view name, std::string_view state) {
      std::lock_guard lock(mu);
      events.push_back(std::string(name) + ": " + std::string(state));
      cv.notify_all();
    };
  }
  bool WaitFor(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return events.size() >= count; });
  }
  std::vector<std::string> Snapshot() {
    std::lock_guard lock(mu);
    return events;
  }
};

bool Run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// The body, in the forked child inside its own network namespace: exits 0
// when the kernel's announcements reached the right subscriptions, else
// prints what went wrong and exits 1.
[[noreturn]] void WatchAVethPairGoDown() {
  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    std::_Exit(1);
  };
  if (!Run("ip link add xlw0 type veth peer name xlw1") || !Run("ip link set xlw0 up") ||
      !Run("ip link set xlw1 up") || !Run("ip link add xlw2 type veth peer name xlw3") ||
      !Run("ip link set xlw2 up") || !Run("ip link set xlw3 up")) {
    fail("ip link could not set up the veth pairs");
  }
  auto watch = LinkWatch::Start();
  if (!watch.ok()) fail(watch.status().ToString());
  Heard near, far, other, ended;
  auto near_watch = (*watch)->Watch(static_cast<int>(if_nametoindex("xlw0")), near.Callback());
  auto far_watch = (*watch)->Watch(static_cast<int>(if_nametoindex("xlw1")), far.Callback());
  auto other_watch = (*watch)->Watch(static_cast<int>(if_nametoindex("xlw2")), other.Callback());
  auto ended_watch = (*watch)->Watch(static_cast<int>(if_nametoindex("xlw3")), ended.Callback());
  ended_watch.Reset();
  if (!Run("ip link set xlw0 down") || !Run("ip link set xlw3 down")) fail("ip link set down");
  if (!near.WaitFor(1, 5s)) fail("no announcement for xlw0 set down");
  if (!far.WaitFor(1, 5s)) fail("no announcement for xlw1, its peer gone");
  if (near.Snapshot().front() != "xlw0: down") fail("xlw0 heard: " + near.Snapshot().front());
  if (far.Snapshot().front() != "xlw1: up but not running (no carrier)") {
    fail("xlw1 heard: " + far.Snapshot().front());
  }
  // xlw2 lost its carrier too (xlw3 went down): it was heard; the ended
  // subscription on xlw3 was not called. Wait for it to have been
  // processed by seeing xlw2's.
  if (!other.WaitFor(1, 5s)) fail("no announcement for xlw2, its peer gone");
  if (!ended.Snapshot().empty()) fail("an ended subscription was called");
  std::_Exit(0);
}

TEST(LinkWatchTest, HearsAVethGoDownAndItsPeerLoseItsCarrier) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: a network namespace and ip link";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (unshare(CLONE_NEWNET) != 0) {
          std::fprintf(stderr, "SKIP: unshare(CLONE_NEWNET) failed\n");
          std::_Exit(77);
        }
        WatchAVethPairGoDown();
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(LinkWatchTest, InterfaceIndexOfFindsLoopbackAndNothingForAStranger) {
  EXPECT_EQ(InterfaceIndexOf("127.0.0.1"), static_cast<int>(if_nametoindex("lo")));
  EXPECT_EQ(InterfaceIndexOf("192.0.2.77"), 0);  // TEST-NET-1: nobody's
  EXPECT_EQ(InterfaceIndexOf("not an address"), 0);
}

}  // namespace
}  // namespace xfer::transport::tcp
