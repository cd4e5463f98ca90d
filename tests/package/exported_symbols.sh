#!/usr/bin/env bash
# libxfer.so exports the public API and nothing else: every dynamic symbol
# it defines is a declaration of include/xfer/ (namespace xfer, outside the
# engine's internal namespaces) or its class's vtable or type information,
# under the version node XFER_0; and the API's entry points are all there.
# Usage: exported_symbols.sh path/to/libxfer.so
set -euo pipefail
lib=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

symbols=$(nm -D --defined-only --demangle "$lib" | awk '{ $1=""; $2=""; sub(/^  /, ""); print }')
[[ -n $symbols ]] || fail "$lib exports nothing"
internal='xfer::(transport|core|cuda|verbs|internal|common|bench|testing)::'
public='^((vtable|typeinfo|typeinfo name) for )?xfer::'
bad=$(grep -v -E "$public" <<<"$symbols" | grep -v -x 'XFER_0' || true)
[[ -z $bad ]] || fail "exported outside namespace xfer:"$'\n'"$bad"
leaked=$(grep -E "^((vtable|typeinfo|typeinfo name) for )?$internal" <<<"$symbols" || true)
[[ -z $leaked ]] || fail "internal symbols exported:"$'\n'"$leaked"
# Names end where the arguments or an ABI tag ("[abi:cxx11]") begin.
for wanted in Engine::Create Engine::Transfer TransferRequest::Wait TransferRequest::Test \
              TransferRequest::~TransferRequest Status::ToString Status::WithContext \
              StatusCodeName BuiltinTransports BuiltinTransportOptions MemoryKindName DataMoverName CudaSupport \
              ListCudaDevices LocalCopyName TimeLocalCopies; do
  wanted="xfer::$wanted"
  grep -q -E "^${wanted}[[(]" <<<"$symbols" || fail "$lib does not export $wanted"
done
# objdump -T: defined symbols have a section other than *UND*; the version
# node is the column before the name.
unversioned=$(objdump -T "$lib" | awk '/^[0-9a-f]+ / && !/\*UND\*/ && $(NF-1) != "XFER_0" && $NF != "XFER_0"' || true)
[[ -z $unversioned ]] || fail "exported symbols outside the version node XFER_0:"$'\n'"$unversioned"
echo "PASS: $(wc -l <<<"$symbols") symbols exported, all public API under XFER_0"
