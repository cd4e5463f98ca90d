// The kernel's word that a network interface went down, for the tcp
// endpoints whose sockets run over it. A tcp socket whose link is taken
// down (`ip link set eth1 down`, a cable pulled, the peer's end of a veth
// gone) learns nothing: its sends queue and its retransmissions go nowhere
// until a timeout. The kernel does announce the link's state, over
// rtnetlink (RTM_NEWLINK without IFF_RUNNING, RTM_DELLINK), and a rail of
// a striped connection that listens fails at once, so that its slices move
// to the other rails within milliseconds rather than after a silence.
//
// One watching thread per LinkWatch, blocked in poll() on a NETLINK_ROUTE
// socket subscribed to RTMGRP_LINK (of the network namespace it was
// created in) and on an eventfd that stops it.
#ifndef XFER_TRANSPORT_TCP_LINK_WATCH_H_
#define XFER_TRANSPORT_TCP_LINK_WATCH_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/unique_fd.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

class LinkWatch {
 public:
  // Called on the watching thread with the interface's name and what the
  // kernel said ("not running", "removed"). Must not call Watch or drop a
  // Subscription of the same LinkWatch.
  using OnDown = std::function<void(std::string_view interface, std::string_view state)>;

  // Opens the netlink socket and starts the thread. Errors: kIoError
  // (socket, bind, eventfd), kResourceExhausted (the thread).
  static Result<std::unique_ptr<LinkWatch>> Start();
  ~LinkWatch();  // stops and joins the thread
  LinkWatch(const LinkWatch&) = delete;
  LinkWatch& operator=(const LinkWatch&) = delete;

  // Ends its watch on destruction: once the destructor returns, its
  // callback is not running and never runs again. Move-only.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& other) noexcept;
    Subscription& operator=(Subscription&& other) noexcept;
    ~Subscription();
    void Reset();

   private:
    friend class LinkWatch;
    Subscription(LinkWatch* watch, uint64_t id) : watch_(watch), id_(id) {}
    LinkWatch* watch_ = nullptr;
    uint64_t id_ = 0;
  };

  // Calls `on_down` each time the kernel announces interface `ifindex`
  // down (again for each announcement while it stays down). The
  // LinkWatch must outlive the subscription.
  Subscription Watch(int ifindex, OnDown on_down);

  // The messages read so far: for tests that wait for the thread to have
  // seen an announcement.
  uint64_t messages() const;

 private:
  LinkWatch(UniqueFd netlink, UniqueFd stop);
  void Run();
  void Dispatch(const uint8_t* data, size_t length);
  void Unwatch(uint64_t id);

  UniqueFd netlink_;
  UniqueFd stop_;  // an eventfd: written once to stop the thread
  mutable std::mutex mu_;
  // Held while callbacks run, so that Unwatch waits them out.
  std::map<uint64_t, std::pair<int, OnDown>> watches_;  // GUARDED_BY(mu_)
  uint64_t next_id_ = 1;                                // GUARDED_BY(mu_)
  uint64_t messages_ = 0;                               // GUARDED_BY(mu_)
  std::thread thread_;
};

// The index of the interface whose IPv4 address `address` is (e.g. the
// local address of a connected socket); 0 when no interface has it.
int InterfaceIndexOf(const std::string& address);

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_LINK_WATCH_H_
