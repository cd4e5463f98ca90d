// Writes the seed corpora of the libFuzzer targets (tests/*/fuzz/corpus/).
// Every seed is the output of the real encoder, fed with the values a real
// connection carries: two engines connected over loopback (tcp, then shm)
// give the identities, regions, transport and stream count of the handshake
// and the addresses of the frames; the bench, matrix and perftest messages
// use the parameters their command lines produce by default. The verbs and
// perftest key messages need an RDMA device, which this recorder does not
// assume: they take the shape Soft-RoCE gives (RoCE v2, GID set, MTU 1024).
//
// Regenerate after a wire format changes:
//   cmake --build build/fuzz --target record_fuzz_seeds &&
//   build/fuzz/tests/fuzz_seeds/record_fuzz_seeds "$PWD"
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/matrix/control_messages.h"
#include "bench/oob_channel.h"
#include "core/handshake.h"
#include "core/host_identity.h"
#include "core/rail_recovery.h"
#include "core/shared_secret.h"
#include "perftest/negotiation.h"
#include "perftest/stock_parameters.h"
#include "perftest/wire_format.h"
#include "transport/shm/frame.h"
#include "transport/shm/region_table.h"
#include "transport/shm/rendezvous.h"
#include "transport/tcp/frame.h"
#include "transport/verbs/setup_message.h"
#include "xfer/engine.h"

namespace {

namespace fs = std::filesystem;

class Corpus {
 public:
  explicit Corpus(fs::path dir) : dir_(std::move(dir)) { fs::create_directories(dir_); }
  // One seed: the selector byte (omitted when negative) and the message.
  template <typename Bytes>
  void Add(const std::string& name, int selector, const Bytes& message) {
    std::vector<uint8_t> seed;
    if (selector >= 0) seed.push_back(static_cast<uint8_t>(selector));
    seed.insert(seed.end(), std::begin(message), std::end(message));
    std::ofstream(dir_ / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(seed.data()), static_cast<std::streamsize>(seed.size()));
  }

 private:
  fs::path dir_;
};

struct LiveConnection {
  xfer::PeerInfo initiator_view;  // the acceptor as the initiator sees it
  xfer::PeerInfo acceptor_view;
};

// Two engines in this process, connected over loopback on `transport`.
LiveConnection Connect(const std::string& transport) {
  xfer::EngineOptions acceptor_options;
  acceptor_options.name = "seed-target";
  acceptor_options.transports = {transport};
  auto acceptor = xfer::Engine::Create(acceptor_options);
  xfer::EngineOptions initiator_options = acceptor_options;
  initiator_options.name = "seed-initiator";
  initiator_options.listen_address = "";
  auto initiator = xfer::Engine::Create(initiator_options);
  if (!acceptor.ok() || !initiator.ok()) std::abort();
  (void)(*acceptor)->AllocateMemory(1 << 20, {});
  (void)(*acceptor)->AllocateMemory(64 << 10, {});
  (void)(*initiator)->AllocateMemory(1 << 20, {});
  xfer::ConnectOptions connect;
  connect.transport = transport;
  connect.streams = 2;
  auto peer = (*initiator)->Connect((*acceptor)->listen_address(), connect);
  auto accepted = (*acceptor)->WaitForPeer(std::chrono::seconds(5));
  if (!peer.ok() || !accepted.ok()) {
    std::fprintf(stderr, "record_fuzz_seeds: %s connection failed: %s\n", transport.c_str(),
                 peer.ok() ? accepted.status().ToString().c_str() : peer.status().ToString().c_str());
    std::abort();
  }
  return {*(*initiator)->GetPeerInfo(*peer), *(*acceptor)->GetPeerInfo(*accepted)};
}

void RecordHandshake(const fs::path& root, const LiveConnection& tcp, const LiveConnection& shm) {
  using namespace xfer::core;
  Corpus corpus(root / "tests/core/fuzz/corpus");
  int n = 0;
  for (const LiveConnection* live : {&tcp, &shm}) {
    Hello hello;
    hello.identity = {live->acceptor_view.name, 4242, LocalHostIdentity()};
    hello.transports = {"shm", "tcp", "verbs"};
    hello.forced_transport = live->initiator_view.transport;
    hello.streams = live->initiator_view.streams;
    hello.regions = live->acceptor_view.regions;
    // The rails a connection between two namespaces offers: the control
    // path's address and a second subnet's (what PeerInfo::rails shows).
    hello.rails = static_cast<uint32_t>(live->initiator_view.rails.size()) + 1;
    hello.rail_ends = {{"tcp", {{"10.0.1.1", "10.0.1.0/24", 1.25e8}, {"10.0.2.1", "10.0.2.0/24", 1.25e8}}}};
    corpus.Add("hello-" + std::to_string(n), 0, EncodeHello(hello));
    HelloReply reply;
    reply.transport = live->initiator_view.transport;
    reply.streams = live->initiator_view.streams;
    reply.identity = {live->initiator_view.name, 4243, LocalHostIdentity()};
    reply.regions = live->initiator_view.regions;
    reply.rails = {{"10.0.1.1", "10.0.1.2", 1.25e8}, {"10.0.2.1", "10.0.2.2", 1.25e8}};
    corpus.Add("hello-reply-" + std::to_string(n), 1, EncodeHelloReply(reply));
    ++n;
  }
  HelloReply refusal;
  refusal.status = xfer::StatusCode::kNotSupported;
  refusal.message = "transport 'verbs' is not allowed by this engine";
  corpus.Add("hello-reply-refused", 1, EncodeHelloReply(refusal));
  for (AuthMode mode : {AuthMode::kNone, AuthMode::kHmacSha256}) {
    AuthOffer offer{mode, {}};
    AuthChallenge challenge{mode, {}, {}};
    if (mode == AuthMode::kHmacSha256) {
      offer.initiator_nonce = *FreshNonce();
      challenge.acceptor_nonce = *FreshNonce();
      auto secret = SharedSecret::Create("a shared secret of the seeds");
      challenge.acceptor_proof = secret->Sign({offer.initiator_nonce, challenge.acceptor_nonce});
    }
    const std::string suffix = mode == AuthMode::kNone ? "none" : "hmac";
    corpus.Add("auth-offer-" + suffix, 2, EncodeAuthOffer(offer));
    corpus.Add("auth-challenge-" + suffix, 3, EncodeAuthChallenge(challenge));
  }
  // The rails' recovery, as two engines exchange it.
  corpus.Add("rail-rejoin", 4, EncodeRailMessage({RailMessage::Kind::kRejoin, 1, 7, {}}));
  corpus.Add("rail-refuse", 4,
             EncodeRailMessage({RailMessage::Kind::kRefuse, 1, 7,
                                "region 3 (4194304 bytes), announced to the peer at connect, has "
                                "been deregistered since"}));
  corpus.Add("rail-down", 4,
             EncodeRailMessage({RailMessage::Kind::kDown, 0, 0,
                                "connection lost: tcp: the link under this rail, eth1, is down "
                                "(the kernel announced it)"}));
}

void RecordTcpFrames(const fs::path& root, const LiveConnection& tcp) {
  using namespace xfer::transport::tcp;
  Corpus corpus(root / "tests/transport/tcp/fuzz/corpus");
  const xfer::RemoteRegion& region = tcp.initiator_view.regions.front();
  std::vector<uint8_t> stream;
  uint64_t id = 0;
  auto frame = [&](FrameType type, xfer::StatusCode status, uint64_t length, bool payload) {
    FrameHeader header{type, status, ++id, region.address + 4096, length};
    const FrameBytes bytes = EncodeFrameHeader(header);
    corpus.Add(std::string("header-") + FrameTypeName(type) + "-" + std::to_string(id), 0, bytes);
    stream.insert(stream.end(), bytes.begin(), bytes.end());
    if (payload) stream.insert(stream.end(), static_cast<size_t>(length), uint8_t{0xa5});
  };
  frame(FrameType::kWrite, xfer::StatusCode::kOk, 64, true);
  frame(FrameType::kWriteAck, xfer::StatusCode::kOk, 64, false);
  frame(FrameType::kRead, xfer::StatusCode::kOk, 4096, false);
  frame(FrameType::kReadData, xfer::StatusCode::kOk, 128, true);
  frame(FrameType::kReadData, xfer::StatusCode::kOutOfRange, 0, false);
  frame(FrameType::kSend, xfer::StatusCode::kOk, 32, true);
  // Streams as a data socket carries them, read with a small and the
  // default-sized reader (the selector's second byte adds to a header).
  std::vector<uint8_t> small{0};
  small.insert(small.end(), stream.begin(), stream.end());
  corpus.Add("stream-small-reader", 1, small);
  std::vector<uint8_t> large{255};
  large.insert(large.end(), stream.begin(), stream.end());
  corpus.Add("stream-large-reader", 1, large);
}

void RecordShm(const fs::path& root, const LiveConnection& shm) {
  using namespace xfer::transport::shm;
  Corpus corpus(root / "tests/transport/shm/fuzz/corpus");
  FrameHeader send{kFrameMagic, kFrameSend, 4096};
  corpus.Add("frame-send", 0, std::span(reinterpret_cast<const uint8_t*>(&send), sizeof(send)));
  const std::vector<uint8_t> abort_body =
      EncodeAbortBody(xfer::Timeout("shm: a 4096-byte message arrived and no receive was posted within 2000 ms"));
  FrameHeader abort{kFrameMagic, kFrameAbort, abort_body.size()};
  std::vector<uint8_t> abort_frame(reinterpret_cast<const uint8_t*>(&abort),
                                   reinterpret_cast<const uint8_t*>(&abort) + sizeof(abort));
  abort_frame.insert(abort_frame.end(), abort_body.begin(), abort_body.end());
  corpus.Add("frame-abort", 0, abort_frame);
  const RendezvousToken token{0x1f2e3d4c5b6a7988, 0x0123456789abcdef};
  corpus.Add("announcement", 1, EncodeAnnouncement({token, "xfer-shm-4242-8c1d2e3f4a5b6c7d"}));
  corpus.Add("token", 2, EncodeRendezvousToken(token));
  corpus.Add("table-header", 3,
             EncodeRegionTableHeader(static_cast<uint32_t>(shm.initiator_view.regions.size())));
  int n = 0;
  for (const xfer::RemoteRegion& region : shm.initiator_view.regions) {
    corpus.Add("region-row-" + std::to_string(n++), 4, EncodeRegionRow(region));
  }
}

void RecordVerbs(const fs::path& root, const LiveConnection& tcp) {
  using namespace xfer::transport::verbs;
  Corpus corpus(root / "tests/transport/verbs/fuzz/corpus");
  SetupMessage setup;
  setup.link_layer = WireLinkLayer::kEthernet;
  setup.mtu = 3;
  setup.has_gid = true;
  setup.recv_slot_bytes = 8192;
  setup.recv_slots = 64;
  for (uint32_t stream = 0; stream < 2; ++stream) {
    xfer::verbs::QpEndpoint qp;
    qp.qpn = 0x11 + stream;
    qp.psn = 0x3a5b7c + stream;
    qp.out_reads = 16;
    qp.gid = std::array<uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    setup.qps.push_back(qp);
  }
  for (const xfer::RemoteRegion& region : tcp.initiator_view.regions) {
    setup.keys.push_back({region.id, region.address, region.length, 0x1234, region.access});
  }
  corpus.Add("setup-roce", -1, EncodeSetup(setup));
  corpus.Add("verdict-ok", -1, EncodeVerdict(xfer::Status::Ok()));
  corpus.Add("verdict-refused", -1,
             EncodeVerdict(xfer::FailedPrecondition("verbs: port 1 of rxe0 is down")));
}

void RecordPerftest(const fs::path& root) {
  using namespace xfer::perftest;
  Corpus corpus(root / "tests/perftest/fuzz/corpus");
  corpus.Add("version", 0, EncodeVersion(kAdvertisedVersion));
  corpus.Add("version-debian12", 0, EncodeVersion("6.06"));
  corpus.Add("system-data", 1, EncodeInt32(64));
  corpus.Add("mtu-new", 2, EncodeMtu(3, 2));
  corpus.Add("mtu-old", 2, EncodeMtu(3, 4));
  xfer::bench::QpAddress address;
  address.lid = 0;
  address.out_reads = 16;
  address.qpn = 0x11;
  address.psn = 0x3a5b7c;
  address.rkey = 0x1234;
  address.vaddr = 0x7f3a12000000;
  corpus.Add("key", 3, EncodeKeyMessage(address));
  address.gid = std::array<uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
  corpus.Add("key-gid", 4, EncodeKeyMessage(address));
  corpus.Add("report-u64", 5, EncodeU64(65536));
  corpus.Add("report-double", 6, EncodeDouble(11.5));
  xfer::bench::BenchParams params;
  ibv_device_attr attr{};
  attr.max_qp_rd_atom = 16;
  corpus.Add("negotiation", 7,
             EncodeNegotiation(StockNegotiation(params, StockMaxMessageSize(params, 1024), attr)));
}

void RecordBench(const fs::path& root) {
  using namespace xfer::bench;
  Corpus corpus(root / "tests/bench/fuzz/corpus");
  BenchParams params;
  const RunSetup setup = MakeRunSetup(params, 0x7f3a12000000, 1 << 20);
  corpus.Add("oob-setup", 0, EncodeSetupMessage(setup));
  SetupReply accepted{true, "", 40123, 0x7f3a13000000, 1 << 20};
  corpus.Add("oob-setup-reply", 1, EncodeSetupReplyMessage(accepted));
  SetupReply refused{false, CompareSetups(setup, MakeRunSetup(params, 0, 0)) + "-s/--size: server 65536, client 1024", 0, 0, 0};
  corpus.Add("oob-setup-reply-refused", 1, EncodeSetupReplyMessage(refused));
  corpus.Add("oob-barrier", 2, EncodeBarrierMessage(3));
  BwResult bw;
  bw.size = 65536;
  bw.iterations = 5000;
  bw.peak_bytes_per_s = 1.2e10;
  bw.avg_bytes_per_s = 1.1e10;
  bw.msg_rate_mpps = 0.17;
  corpus.Add("oob-bw-result", 3, EncodeBwResultMessage(bw));
  LatResult lat;
  lat.size = 2;
  lat.iterations = 1000;
  lat.t_min_us = 1.1;
  lat.t_max_us = 9.5;
  lat.t_typical_us = 1.4;
  lat.t_avg_us = 1.5;
  corpus.Add("oob-lat-result", 4, EncodeLatResultMessage(lat));
  LatDurationResult lat_duration;
  lat_duration.size = 2;
  lat_duration.iterations = 300000;
  lat_duration.t_avg_us = 1.6;
  lat_duration.tps = 610000;
  corpus.Add("oob-lat-duration-result", 5, EncodeLatDurationResultMessage(lat_duration));
  using namespace xfer::matrix;
  Hello hello;
  hello.agreement.directions = {"H2rH", "rH2H"};
  hello.agreement.transports = {"tcp"};
  hello.agreement.block_sizes = {4096, 65536, 1 << 20};
  corpus.Add("matrix-hello", 6, EncodeHello(hello));
  HelloReply reply;
  reply.accepted = true;
  reply.engine_port = 40124;
  reply.buffers = {{"host", true, "", 0x7f3a14000000, 128 << 20},
                   {"device", false, "no CUDA device", 0, 0}};
  corpus.Add("matrix-hello-reply", 6, EncodeHelloReply(reply));
  corpus.Add("matrix-buffer-request", 6, EncodeBufferRequest({BufferOp::kCheck, "host", 7, 1 << 20}));
  corpus.Add("matrix-buffer-reply", 6, EncodeBufferReply({false, "byte 4096 differs from the pattern"}));
  corpus.Add("matrix-heartbeat", 6, EncodeBare(ControlType::kHeartbeat));
  corpus.Add("matrix-abort", 6, EncodeAbort("target: cannot allocate 128 MiB of hugepages"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const LiveConnection tcp = Connect("tcp");
  const LiveConnection shm = Connect("shm");
  RecordHandshake(root, tcp, shm);
  RecordTcpFrames(root, tcp);
  RecordShm(root, shm);
  RecordVerbs(root, tcp);
  RecordPerftest(root);
  RecordBench(root);
  return 0;
}
