// xfer.Request: the completion handle of one asynchronous operation
// (Engine.write_async / read_async / submit / post_send / post_recv).
#ifndef XFER_PYTHON_REQUEST_H_
#define XFER_PYTHON_REQUEST_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "operation.h"

namespace xfer::python {

// Shares the operation with the engine's bookkeeping, which keeps it while
// it is in flight: dropping a Request never destroys an in-flight
// TransferRequest, and the engine's close fails it with CONNECTION_LOST.
class Request {
 public:
  explicit Request(std::shared_ptr<const Operation> operation) : operation_(std::move(operation)) {}

  // False while in flight, true once finished OK; throws StatusError with
  // the final status if it failed.
  bool Test() const;
  // Blocks (GIL released) until finished or `timeout_seconds` passed.
  // Returns bytes(); throws StatusError on failure, TIMEOUT included (the
  // operation then stays in flight).
  size_t Wait(double timeout_seconds) const;

  Status status() const { return operation_->request.Test(); }
  bool done() const { return operation_->request.done(); }
  size_t bytes() const { return operation_->request.bytes(); }
  // The engine's handle of the operation, for Engine.cancel: the one call
  // that acts on a request in flight rather than observing it.
  TransferRequest& in_flight() const { return const_cast<TransferRequest&>(operation_->request); }

 private:
  std::shared_ptr<const Operation> operation_;
};

void BindRequest(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_REQUEST_H_
