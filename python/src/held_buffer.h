// A buffer export (PEP 3118) taken from a Python object and held: while it
// is held the object stays alive and its memory stays where it is (a
// bytearray refuses to resize, a numpy array to be resized in place).
#ifndef XFER_PYTHON_HELD_BUFFER_H_
#define XFER_PYTHON_HELD_BUFFER_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>

namespace xfer::python {

class HeldBuffer {
 public:
  // Holds nothing.
  HeldBuffer() = default;

  // Takes a writable, C-contiguous export of `object`. Throws TypeError when
  // `object` does not support the buffer protocol at all, and StatusError
  // (INVALID_ARGUMENT, naming the reason) when its buffer is read-only or
  // not contiguous. REQUIRES: the GIL is held.
  static HeldBuffer Acquire(pybind11::handle object);

  // Releases the export. REQUIRES: the GIL is held when something is held.
  ~HeldBuffer() = default;
  HeldBuffer(HeldBuffer&&) noexcept = default;
  HeldBuffer& operator=(HeldBuffer&&) noexcept = default;

  bool held() const { return view_ != nullptr; }
  void* data() const { return view_->buf; }
  size_t length() const { return static_cast<size_t>(view_->len); }

 private:
  struct Release {
    void operator()(Py_buffer* view) const;
  };
  // On the heap: an exporter may point a Py_buffer's fields into the
  // Py_buffer itself (shape = &len), so it must never move.
  std::unique_ptr<Py_buffer, Release> view_;
};

}  // namespace xfer::python

#endif  // XFER_PYTHON_HELD_BUFFER_H_
