// Happens-before through the kernel, told to ThreadSanitizer.
//
// Bytes one thread sends through a socket or pipe and another receives
// order the two as surely as a mutex does, but ThreadSanitizer sees no
// synchronization there. The tests run both ends of a connection in one
// process (a tcp READ: the test writes memory and sends the request; the
// responder receives it and sends the memory), and a forked target tells
// its parent over a pipe what it wrote. Call SendingThroughKernel() before
// a send or write and ReceivedThroughKernel() after a receive or read that
// returned bytes: every send releases, and every receive acquires, one key
// shared by all descriptors. That over-approximates (it can hide a race
// only between threads that also talk through the kernel). Both compile to
// nothing outside a ThreadSanitizer build.
#ifndef XFER_COMMON_KERNEL_CHANNEL_H_
#define XFER_COMMON_KERNEL_CHANNEL_H_

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace xfer {

#if defined(__SANITIZE_THREAD__)
namespace internal {
inline constexpr char kKernelChannel = 0;  // only its address is used
}  // namespace internal
inline void SendingThroughKernel() { __tsan_release(const_cast<char*>(&internal::kKernelChannel)); }
inline void ReceivedThroughKernel() { __tsan_acquire(const_cast<char*>(&internal::kKernelChannel)); }
#else
inline void SendingThroughKernel() {}
inline void ReceivedThroughKernel() {}
#endif

}  // namespace xfer

#endif  // XFER_COMMON_KERNEL_CHANNEL_H_
