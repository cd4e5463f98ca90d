// Arguments that the binding converts itself, so that a wrong value raises
// TypeError or ValueError naming the parameter and what it takes
// ("peer must be an int, not str"; "length must not be negative, got -1")
// instead of pybind11's dump of every overload's signature.
//
// pybind11 accepts any object for an Arg<T, "name"> (its load never
// fails, so overload resolution never falls through to the dump); the
// method converts it with get(), where a wrong value throws. The signature
// help() shows keeps T's Python type name.
#ifndef XFER_PYTHON_ARGUMENTS_H_
#define XFER_PYTHON_ARGUMENTS_H_

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "conversions.h"

namespace xfer::python {

// A parameter's name as a template argument: Arg<uint64_t, "length">.
template <size_t N>
struct ArgName {
  constexpr ArgName(const char (&name)[N]) { std::copy_n(name, N, text); }  // NOLINT: implicit by design
  char text[N];
};

// Bytes held as a std::string, for Arg<Bytes, ...>: help() shows "bytes".
struct Bytes {
  std::string data;
};

template <typename T, ArgName Name>
class Arg {
 public:
  Arg() = default;
  explicit Arg(pybind11::object value) : value_(std::move(value)) {}

  // The converted value. Throws TypeError / ValueError naming the
  // parameter; REQUIRES: the GIL is held.
  T get() const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(UnsignedFromPython(value_, Name.text, std::numeric_limits<T>::max()));
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(NumberFromPython(value_, Name.text));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return TextFromPython(value_, Name.text);
    } else if constexpr (std::is_same_v<T, Bytes>) {
      return Bytes{BytesFromPython(value_, Name.text)};
    } else if constexpr (std::is_base_of_v<pybind11::object, T>) {
      // py::object, py::iterable: handed on as is; the method checks what
      // it needs (EntriesFromPython, HeldBuffer) with messages of its own.
      return pybind11::reinterpret_borrow<T>(value_);
    } else {
      try {
        return value_.template cast<T>();
      } catch (const pybind11::cast_error&) {
        throw pybind11::type_error(std::string(Name.text) + " must be " + ExpectedType() +
                                   ", not " + PythonTypeName(value_));
      }
    }
  }

 private:
  // "xfer.MemoryKind" for a bound class or enum, else pybind11's name
  // ("Optional[List[str]]").
  static std::string ExpectedType() {
    using Caster = pybind11::detail::make_caster<T>;
    if constexpr (std::is_base_of_v<pybind11::detail::type_caster_generic, Caster>) {
      return "xfer." + pybind11::type::of<T>().attr("__name__").template cast<std::string>();
    } else {
      return Caster::name.text;
    }
  }

  pybind11::object value_;
};

// Binds a method so that every parameter goes through Arg, named by
// Names in order, and an unknown keyword raises TypeError naming Function:
//   .def("send", Checked<"send", "peer", "address", "length", "timeout">::
//                    Method(&PythonEngine::Send), py::arg("peer"), ...)
// The arguments are converted left to right, so the first wrong one is
// the one reported. Free functions taking the object first bind with Free.
template <ArgName Function, ArgName... Names>
struct Checked {
  template <typename R, typename C, typename... Params>
  static auto Method(R (C::*method)(Params...)) {
    return Wrap<R, C&, Params...>([method](C& self, auto&... values) -> R {
      return (self.*method)(values...);
    });
  }
  template <typename R, typename C, typename... Params>
  static auto Method(R (C::*method)(Params...) const) {
    return Wrap<R, const C&, Params...>([method](const C& self, auto&... values) -> R {
      return (self.*method)(values...);
    });
  }
  template <typename R, typename C, typename... Params>
  static auto Free(R (*function)(C&, Params...)) {
    return Wrap<R, C&, Params...>(
        [function](C& self, auto&... values) -> R { return function(self, values...); });
  }

 private:
  template <typename R, typename Self, typename... Params, typename Invoke>
  static auto Wrap(Invoke invoke) {
    static_assert(sizeof...(Names) == sizeof...(Params), "one name per parameter");
    return [invoke](Self self, Arg<std::decay_t<Params>, Names>... args,
                    const pybind11::kwargs& extra) -> R {
      RefuseUnexpectedKeywords(Function.text, extra);
      std::tuple<std::decay_t<Params>...> values{args.get()...};  // in order: braced
      return std::apply([&](auto&... converted) -> R { return invoke(self, converted...); },
                        values);
    };
  }
};

}  // namespace xfer::python

namespace pybind11::detail {

template <typename T, xfer::python::ArgName Name>
struct type_caster<xfer::python::Arg<T, Name>> {
  using Value = xfer::python::Arg<T, Name>;
  static constexpr auto PythonName() {
    if constexpr (std::is_same_v<T, xfer::python::Bytes>) {
      return const_name("bytes");
    } else {
      return make_caster<T>::name;
    }
  }
  PYBIND11_TYPE_CASTER(Value, PythonName());

  bool load(handle source, bool /*convert*/) {
    value = Value(reinterpret_borrow<object>(source));
    return true;
  }
  static handle cast(const Value&, return_value_policy, handle) {
    pybind11_fail("xfer::python::Arg is an argument type only");
  }
};

}  // namespace pybind11::detail

#endif  // XFER_PYTHON_ARGUMENTS_H_
