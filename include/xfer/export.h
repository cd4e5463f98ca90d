// XFER_API marks what libxfer.so exports: the declarations of include/xfer/
// and nothing else. Everything else is built with hidden visibility, so the
// engine's internals, and the template instantiations they make, stay
// private to the library (see src/libxfer/libxfer.map).
#ifndef XFER_EXPORT_H_
#define XFER_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define XFER_API [[gnu::visibility("default")]]
#else
#define XFER_API
#endif

#endif  // XFER_EXPORT_H_
