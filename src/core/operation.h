// One operation on a connection, as each entry point of the engine hands it
// to the submit pipeline (submit_pipeline.h). It holds views only: the
// entries, indices, buffers and notification it names belong to the caller
// and outlive the SubmitPipeline::Post call that takes it.
#ifndef XFER_CORE_OPERATION_H_
#define XFER_CORE_OPERATION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>

#include "core/prepared_list.h"
#include "transport/transport.h"
#include "xfer/engine.h"

namespace xfer::core {

// A one-sided batch the caller lists now (Engine::Submit).
struct TransferOperation {
  OpCode op;
  std::span<const TransferEntry> entries;
};

// A selection of a list checked when it was prepared (Engine::SubmitPrepared);
// the selection's indices are known to lie in the list.
struct PreparedOperation {
  internal::PreparedList* list;
  OpCode op;
  transport::PreparedSelection selection;
};

// A notification alone (Engine::Notify).
struct NotifyOperation {};

// Two-sided messages (Engine::PostSend, Engine::PostRecv).
struct SendOperation {
  const void* data;
  size_t length;
};
struct RecvOperation {
  void* buffer;
  size_t capacity;
};

struct Operation {
  // Unused by PreparedOperation, whose list names its peer.
  PeerId peer = 0;
  std::variant<TransferOperation, PreparedOperation, NotifyOperation, SendOperation, RecvOperation>
      what;
  // Any value: the pipeline maps it onto the connection's streams. Unused
  // by receives, which the transport matches in posting order.
  uint32_t stream = 0;
  // Delivered to the peer after the transfer, or alone (NotifyOperation);
  // empty for none. Two-sided operations carry none.
  std::span<const uint8_t> notification{};
  // The request's deadline (SubmitOptions::timeout); zero for none.
  std::chrono::nanoseconds timeout{0};
};

}  // namespace xfer::core

#endif  // XFER_CORE_OPERATION_H_
