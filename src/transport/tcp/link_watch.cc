#include "transport/tcp/link_watch.h"

#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/socket.h"

namespace xfer::transport::tcp {

Result<std::unique_ptr<LinkWatch>> LinkWatch::Start() {
  UniqueFd netlink(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE));
  if (!netlink.valid()) return IoError(ErrnoMessage("netlink socket", errno));
  sockaddr_nl where{};
  where.nl_family = AF_NETLINK;
  where.nl_groups = RTMGRP_LINK;
  if (::bind(netlink.get(), reinterpret_cast<const sockaddr*>(&where), sizeof(where)) != 0) {
    return IoError(ErrnoMessage("bind to the kernel's link announcements (RTMGRP_LINK)", errno));
  }
  UniqueFd stop(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop.valid()) return IoError(ErrnoMessage("eventfd", errno));
  std::unique_ptr<LinkWatch> watch(new LinkWatch(std::move(netlink), std::move(stop)));
  try {
    watch->thread_ = std::thread([raw = watch.get()] { raw->Run(); });
  } catch (const std::system_error& e) {
    return ResourceExhausted(fmt::format("cannot start the tcp link watch: {}", e.what()));
  }
  return watch;
}

LinkWatch::LinkWatch(UniqueFd netlink, UniqueFd stop)
    : netlink_(std::move(netlink)), stop_(std::move(stop)) {}

LinkWatch::~LinkWatch() {
  const uint64_t one = 1;
  // Cannot fail short of a bad descriptor: the counter is far from full.
  [[maybe_unused]] const ssize_t written = ::write(stop_.get(), &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
}

void LinkWatch::Run() {
  // Announcements are small (an ifinfomsg and its attributes, about 1 KiB);
  // a burst of them arrives in one read of this.
  std::vector<uint8_t> buffer(64 << 10);
  for (;;) {
    std::array<pollfd, 2> fds{{{netlink_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    for (;;) {
      sockaddr_nl from{};
      socklen_t from_length = sizeof(from);
      const ssize_t got = ::recvfrom(netlink_.get(), buffer.data(), buffer.size(), 0,
                                     reinterpret_cast<sockaddr*>(&from), &from_length);
      if (got > 0) {
        // Only the kernel (port 0) speaks for the links: a message another
        // process sent to this socket is dropped.
        if (from.nl_pid == 0) Dispatch(buffer.data(), static_cast<size_t>(got));
        continue;
      }
      // EAGAIN: read them all. ENOBUFS: the kernel dropped some while this
      // thread was late; the next announcement of a link still down
      // repeats its state, so nothing is lost for good.
      if (got < 0 && (errno == EINTR || errno == ENOBUFS)) continue;
      break;
    }
  }
}

namespace {

// Netlink's alignment of messages and of their attributes (NLMSG_ALIGNTO,
// RTA_ALIGNTO). The kernel's macros are C casts; the walk below copies
// each header out instead, which also spares it any alignment assumption.
constexpr size_t Align4(size_t n) { return (n + 3) & ~size_t{3}; }

// IFLA_IFNAME among the attributes [data, data + length) of an ifinfomsg;
// empty when absent.
std::string InterfaceName(const uint8_t* data, size_t length) {
  for (size_t offset = 0; offset + sizeof(rtattr) <= length;) {
    rtattr attribute;
    std::memcpy(&attribute, data + offset, sizeof(attribute));
    if (attribute.rta_len < sizeof(rtattr) || attribute.rta_len > length - offset) break;
    if (attribute.rta_type == IFLA_IFNAME) {
      const auto* text = reinterpret_cast<const char*>(data + offset + Align4(sizeof(rtattr)));
      const size_t size =
          attribute.rta_len - std::min<size_t>(attribute.rta_len, Align4(sizeof(rtattr)));
      return std::string(text, strnlen(text, size));
    }
    offset += Align4(attribute.rta_len);
  }
  return {};
}

}  // namespace

void LinkWatch::Dispatch(const uint8_t* data, size_t length) {
  constexpr size_t kHeader = Align4(sizeof(nlmsghdr));
  for (size_t offset = 0; offset + sizeof(nlmsghdr) <= length;) {
    nlmsghdr header;
    std::memcpy(&header, data + offset, sizeof(header));
    if (header.nlmsg_len < sizeof(nlmsghdr) || header.nlmsg_len > length - offset) break;
    const uint8_t* payload = data + offset + kHeader;
    const size_t payload_length = header.nlmsg_len - std::min<size_t>(header.nlmsg_len, kHeader);
    offset += Align4(header.nlmsg_len);
    std::lock_guard lock(mu_);
    ++messages_;
    if (header.nlmsg_type != RTM_NEWLINK && header.nlmsg_type != RTM_DELLINK) continue;
    if (payload_length < sizeof(ifinfomsg)) continue;
    ifinfomsg info;
    std::memcpy(&info, payload, sizeof(info));
    const bool removed = header.nlmsg_type == RTM_DELLINK;
    if (!removed && (info.ifi_flags & IFF_RUNNING) != 0) continue;
    std::string name = InterfaceName(payload + Align4(sizeof(ifinfomsg)),
                                     payload_length - std::min(payload_length,
                                                               Align4(sizeof(ifinfomsg))));
    if (name.empty()) name = fmt::format("interface {}", info.ifi_index);
    const char* state = removed                          ? "removed"
                        : (info.ifi_flags & IFF_UP) == 0 ? "down"
                                                         : "up but not running (no carrier)";
    for (const auto& [id, watch] : watches_) {
      if (watch.first == info.ifi_index) watch.second(name, state);
    }
  }
}

LinkWatch::Subscription LinkWatch::Watch(int ifindex, OnDown on_down) {
  std::lock_guard lock(mu_);
  const uint64_t id = next_id_++;
  watches_.emplace(id, std::make_pair(ifindex, std::move(on_down)));
  return Subscription(this, id);
}

void LinkWatch::Unwatch(uint64_t id) {
  std::lock_guard lock(mu_);
  watches_.erase(id);
}

uint64_t LinkWatch::messages() const {
  std::lock_guard lock(mu_);
  return messages_;
}

LinkWatch::Subscription::Subscription(Subscription&& other) noexcept
    : watch_(other.watch_), id_(other.id_) {
  other.watch_ = nullptr;
}

LinkWatch::Subscription& LinkWatch::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    Reset();
    watch_ = other.watch_;
    id_ = other.id_;
    other.watch_ = nullptr;
  }
  return *this;
}

LinkWatch::Subscription::~Subscription() { Reset(); }

void LinkWatch::Subscription::Reset() {
  if (watch_ != nullptr) watch_->Unwatch(id_);
  watch_ = nullptr;
}

int InterfaceIndexOf(const std::string& address) {
  in_addr wanted{};
  if (::inet_pton(AF_INET, address.c_str(), &wanted) != 1) return 0;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return 0;
  int index = 0;
  for (const ifaddrs* entry = list; entry != nullptr && index == 0; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
    if (in->sin_addr.s_addr == wanted.s_addr) {
      index = static_cast<int>(::if_nametoindex(entry->ifa_name));
    }
  }
  ::freeifaddrs(list);
  return index;
}

}  // namespace xfer::transport::tcp
