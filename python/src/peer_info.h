// Read-only descriptions libxfer hands out: PeerInfo (with its
// RemoteRegion table and NicPort) and CudaDevice.
#ifndef XFER_PYTHON_PEER_INFO_H_
#define XFER_PYTHON_PEER_INFO_H_

#include <pybind11/pybind11.h>

namespace xfer::python {

void BindPeerInfo(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_PEER_INFO_H_
