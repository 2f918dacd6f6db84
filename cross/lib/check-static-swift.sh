#!/bin/sh
# Fails unless each ELF file given needs no Swift shared library: the package must run on a
# board with no Swift installed, so the runtime, Foundation, Dispatch and ICU must be linked in.
#
#   cross/lib/check-static-swift.sh BINARY...
#
# readelf -d reads the dynamic section of any architecture's ELF, so this checks cross builds too.
set -eu

[ $# -gt 0 ] || { echo "check-static-swift: name the binaries to check" >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-static-swift: readelf not found (apt-get install binutils)" >&2; exit 2; }

status=0
for binary in "$@"; do
    dynamic=$(readelf -d "$binary") || { echo "check-static-swift: $binary is not an ELF file readelf can read" >&2; exit 1; }
    needed=$(printf '%s\n' "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    swift=$(printf '%s\n' "$needed" | grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime|icu)' || true)
    if [ -n "$swift" ]; then
        echo "check-static-swift: $binary needs Swift shared libraries: $(echo $swift); build with --static-swift-stdlib" >&2
        status=1
    fi
    # A search path into a toolchain would find its libraries on the build machine only.
    if printf '%s\n' "$dynamic" | grep -qE '\((RPATH|RUNPATH)\)'; then
        echo "check-static-swift: $binary has a library search path: $(printf '%s\n' "$dynamic" | grep -E '\((RPATH|RUNPATH)\)')" >&2
        status=1
    fi
    [ $status -ne 0 ] || echo "check-static-swift: $(basename "$binary") needs only: $(echo $needed)"
done
exit $status
