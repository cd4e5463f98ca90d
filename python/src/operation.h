// What one call holds on to while the engine may still use it: the
// TransferRequest of an asynchronous operation and the registrations whose
// memory it reads or writes.
#ifndef XFER_PYTHON_OPERATION_H_
#define XFER_PYTHON_OPERATION_H_

#include <cstdint>
#include <vector>

#include "xfer/transfer.h"

namespace xfer::python {

// Shared by the engine's bookkeeping (EngineCore, which keeps every active
// operation) and, for asynchronous calls, the Python Request. So a Request
// that Python drops while in flight does not destroy its TransferRequest
// (which the transport still holds), and a registration its bytes move
// through cannot be deregistered under it.
struct Operation {
  TransferRequest request;
  // The registrations (by region id) holding the local addresses.
  std::vector<uint64_t> local_regions;
  // True while the call that started the operation runs with the GIL
  // released (Submit, a synchronous Transfer, a post and its wait): the
  // request may not be in flight yet, or at all, but the memory is in use.
  // Read and written with the GIL held.
  bool in_call = true;

  // Whether the engine may still touch the request or the memory.
  bool active() const { return in_call || !request.done(); }
};

}  // namespace xfer::python

#endif  // XFER_PYTHON_OPERATION_H_
