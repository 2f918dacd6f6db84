#!/usr/bin/env bash
# Makes this amd64 machine run arm64 programs through qemu-user-static (binfmt_misc), as the arm64
# tests need for the helpers a test starts and the boot test for its arm64 chroot. binfmt_misc is
# not always mounted at boot; qemu-user-static's entry has the F flag, so it also works in chroots.
set -euo pipefail
[[ $(id -u) -eq 0 ]] || { echo "binfmt-arm64: needs root" >&2; exit 1; }
binfmt=/proc/sys/fs/binfmt_misc
[[ -f $binfmt/status ]] || mount -t binfmt_misc binfmt_misc "$binfmt"
if [[ ! -f $binfmt/qemu-aarch64 ]]; then
    command -v update-binfmts >/dev/null && [[ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P || -x /usr/bin/qemu-aarch64-static ]] \
        || { echo "binfmt-arm64: qemu-user-static and binfmt-support are missing: run scripts/install-deps.sh" >&2; exit 1; }
    update-binfmts --enable qemu-aarch64
fi
grep -qx enabled "$binfmt/qemu-aarch64" || { echo "binfmt-arm64: the qemu-aarch64 entry is disabled" >&2; exit 1; }
