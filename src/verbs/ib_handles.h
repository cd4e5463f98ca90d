// Owning handles for libibverbs objects. Each is a std::unique_ptr whose
// deleter calls the matching ibv_destroy/dealloc/dereg/close function, so a
// verbs resource can never outlive its scope or be released twice.
//
// Teardown order is the caller's contract, as in libibverbs itself: QPs and
// AHs before the CQs and PD they use, MRs before their PD, CQs before their
// completion channel, and everything before the device context. Declaring
// members in creation order (context, channel, pd, cq, mr, qp) gets this for
// free from C++'s reverse-order destruction.
#ifndef XFER_VERBS_IB_HANDLES_H_
#define XFER_VERBS_IB_HANDLES_H_

#include <infiniband/verbs.h>

#include <memory>

namespace xfer::verbs {

// A destroy function's return value only reports EBUSY-style misuse, which
// the ordering contract above rules out; there is nothing to do with it in
// a destructor.
template <typename T, auto Destroy>
struct IbDeleter {
  void operator()(T* object) const noexcept {
    if (object != nullptr) static_cast<void>(Destroy(object));
  }
};

template <typename T, auto Destroy>
using IbHandle = std::unique_ptr<T, IbDeleter<T, Destroy>>;

using ContextHandle = IbHandle<ibv_context, ibv_close_device>;
using ProtectionDomainHandle = IbHandle<ibv_pd, ibv_dealloc_pd>;
using MemoryRegionHandle = IbHandle<ibv_mr, ibv_dereg_mr>;
using CompletionChannelHandle =
    IbHandle<ibv_comp_channel, ibv_destroy_comp_channel>;
using CompletionQueueHandle = IbHandle<ibv_cq, ibv_destroy_cq>;
using QueuePairHandle = IbHandle<ibv_qp, ibv_destroy_qp>;
using AddressHandle = IbHandle<ibv_ah, ibv_destroy_ah>;

// ibv_get_device_list's array, released with ibv_free_device_list.
struct DeviceListDeleter {
  void operator()(ibv_device** list) const noexcept {
    if (list != nullptr) ibv_free_device_list(list);
  }
};
using DeviceListHandle = std::unique_ptr<ibv_device*, DeviceListDeleter>;

}  // namespace xfer::verbs

#endif  // XFER_VERBS_IB_HANDLES_H_
