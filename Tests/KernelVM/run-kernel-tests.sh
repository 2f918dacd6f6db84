#!/usr/bin/env bash
# The kernel tests: our binaries and a filtered run of the Swift test bundle against the real Linux
# kernel's fake devices, in Debian's kernel under QEMU (TCG) with the host's root shared read-only
# over 9p (nothing is installed; the build directory's binaries run as they are):
#   i2c        each SMBus driver in i2c-chips.txt on i2c-stub, through `blesensor sensor read`
#   swift      the bundle's KernelI2CStubTests on i2c-stub (skipped everywhere else)
#   gpio       gpio-pulse on a gpio-sim line pulsed through its pull attribute, with the build's
#              libgpiod 1.6 and, given --gpiod2-bin/--gpiod2-lib, a libgpiod 2.x build
#   bluetooth  blesensord --transport hci:0 on a dual-mode btvirt controller while a bthelper-like
#              loop powers it up and sends vendor commands, seen advertising from hci1,
#              stopped with SIGTERM; heart-rate-peripheral --stream to the kernel's host on hci1
#   hci        the bundle's KernelHCIUserChannelTests and KernelHCIUnplugTests on btvirt's hci0
#
#   Tests/KernelVM/run-kernel-tests.sh [--bin DIR] [--gpiod2-bin DIR --gpiod2-lib DIR] [--groups LIST] [--smp N] [--env KEY=VALUE]...
#
# --bin: the build's bin directory (default .build/debug) with blesensor, blesensord and
# blesensorPackageTests.xctest. --gpiod2-bin (a directory or its blesensor) and --gpiod2-lib (the
# directory of libgpiod.so.3): the libgpiod 2.x build of scripts/build-gpiod2.sh's bin= and lib=.
# --groups: a comma-separated subset of i2c,swift,gpio,bluetooth,hci (bench, the benchmark group of
# bench-notify-bluez.sh, only when named). --smp: the guest's vCPUs (default 2). --env: passed to
# the guest's checks as is (no spaces).
#
# One boot runs every group. Prints a line per check and "kernel tests: N passed, M failed"; exits
# non-zero when any check failed or the guest did not finish. Caches the initramfs and the gpio-sim
# modules in .build-vm/kernel-tests/; the last run's console.log and results.log stay in
# .build-vm/kernel-tests/last-run/. KERNEL_TESTS_TIMEOUT bounds the boot (default 480 s: twice the slowest run measured on a loaded host).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=$repo/.build-vm/kernel-tests

usage() {
    sed -n '/^#   Tests/p' "$0" | sed 's/^#   /usage: /' >&2
    exit 2
}
bin=$repo/.build/debug
gpiod2_bin= gpiod2_lib=
smp=2
extra_env=()
groups=i2c,swift,gpio,bluetooth,hci
while (($#)); do
    case $1 in
    --bin) bin=${2:?}; shift 2 ;;
    --gpiod2-bin) gpiod2_bin=${2:?}; shift 2 ;;
    --gpiod2-lib) gpiod2_lib=${2:?}; shift 2 ;;
    --groups) groups=${2:?}; shift 2 ;;
    --smp) smp=${2:?}; shift 2 ;;
    --env) extra_env+=("${2:?}"); shift 2 ;;
    -h | --help) usage ;;
    *) echo "kernel tests: unknown argument $1" >&2; usage ;;
    esac
done
if [[ -n $gpiod2_bin || -n $gpiod2_lib ]] && [[ -z $gpiod2_bin || -z $gpiod2_lib ]]; then
    echo "kernel tests: --gpiod2-bin and --gpiod2-lib go together" >&2
    exit 2
fi
# The guest gets these on the kernel command line: absolute, existing, no spaces.
guest_path() {
    local path
    path=$(realpath -e "$2" 2>/dev/null) || { echo "kernel tests: $1 $2 does not exist" >&2; exit 2; }
    [[ $path != *[[:space:]]* ]] || { echo "kernel tests: $1 $path contains a space" >&2; exit 2; }
    echo "$path"
}
bin=$(guest_path --bin "$bin")
# The benchmark group alone needs only heart-rate-peripheral (a release build).
tools=(blesensor blesensord heart-rate-peripheral)
[[ $groups == bench ]] && tools=(heart-rate-peripheral)
for tool in "${tools[@]}"; do
    [[ -x $bin/$tool ]] || { echo "kernel tests: no $bin/$tool: swift build first" >&2; exit 1; }
done
if [[ -n $gpiod2_bin ]]; then
    # The directory, or the blesensor binary in it (scripts/build-gpiod2.sh prints bin=.../blesensor).
    gpiod2_bin=$(guest_path --gpiod2-bin "$gpiod2_bin")
    [[ -f $gpiod2_bin ]] && gpiod2_bin=$(dirname "$gpiod2_bin")
    [[ -x $gpiod2_bin/blesensor ]] || { echo "kernel tests: no blesensor in $gpiod2_bin (--gpiod2-bin)" >&2; exit 1; }
    gpiod2_lib=$(guest_path --gpiod2-lib "$gpiod2_lib")
fi

for tool in qemu-system-x86_64 i2cset btvirt btmgmt script modprobe cpio; do
    command -v "$tool" >/dev/null || { echo "kernel tests: $tool is missing: run scripts/install-deps.sh" >&2; exit 1; }
done
# Debian's newest kernel with its modules.
kver=
shopt -s nullglob
kernels=(/boot/vmlinuz-*)
shopt -u nullglob
while IFS= read -r vmlinuz; do
    [[ -n $vmlinuz ]] || continue
    candidate=${vmlinuz#/boot/vmlinuz-}
    if [[ -d /lib/modules/$candidate/kernel ]]; then kver=$candidate; break; fi
done < <(printf '%s\n' "${kernels[@]}" | sort -V -r)
[[ -n $kver ]] || { echo "kernel tests: no Debian kernel in /boot: apt-get install linux-image-amd64" >&2; exit 1; }

mkdir -p "$cache"
# One run at a time per checkout: the run directory is shared.
exec 9>"$cache/lock"
flock -n 9 || { echo "kernel tests: another run holds $cache/lock" >&2; exit 1; }

started=$(date +%s)
echo "== kernel tests on Debian's kernel $kver (QEMU, TCG): $groups"
initramfs=$("$here/build-initramfs.sh" "$kver" "$cache")
gpio_sim=
if [[ ,$groups, == *,gpio,* ]]; then
    gpio_sim=$("$here/build-gpio-sim.sh" "$kver" "$cache")
fi
prepared=$(date +%s)

run=$cache/run
rm -rf "$run" "$cache/last-run"
mkdir -p "$run"
env=(KVM_SCRIPT="$here/guest/run-checks.sh" KVM_BIN="$bin" KVM_GROUPS="$groups")
[[ -z $gpio_sim ]] || env+=(KVM_GPIO_SIM="$gpio_sim")
env+=("${extra_env[@]}")
[[ -z $gpiod2_bin ]] || env+=(KVM_GPIOD2_BIN="$gpiod2_bin" KVM_GPIOD2_LIB="$gpiod2_lib")
# The guest's /tmp is its own tmpfs, which would hide a checkout or build under the host's /tmp
# (a CI clone there): init binds each such top-level directory back in from the host root.
host_tmp=()
for path in "$repo" "$bin" "$gpiod2_bin" "$gpiod2_lib" "$gpio_sim" "$initramfs"; do
    [[ $path == /tmp/?* ]] || continue
    top=${path#/tmp/}
    top=/tmp/${top%%/*}
    [[ " ${host_tmp[*]} " == *" $top "* ]] || host_tmp+=("$top")
done
if ((${#host_tmp[@]})); then
    joined=$(IFS=,; echo "${host_tmp[*]}")
    env+=(KVM_HOST_TMP="$joined")
fi
env_args=()
for item in "${env[@]}"; do env_args+=(--env "$item"); done
# kernel_vm.py kills QEMU on its deadline and on SIGINT/SIGTERM/SIGHUP; a signal to this script is
# passed on to it (bash would otherwise exit and leave it running).
/usr/bin/python3 "$here/kernel_vm.py" --kernel "/boot/vmlinuz-$kver" --initrd "$initramfs" --run-dir "$run" \
    --timeout "${KERNEL_TESTS_TIMEOUT:-480}" --smp "$smp" "${env_args[@]}" &
vm=$!
trap 'kill -TERM "$vm" 2>/dev/null; wait "$vm"; exit 130' INT TERM HUP
status=0
wait "$vm" || status=$?
trap - INT TERM HUP
mv "$run" "$cache/last-run"
echo "kernel tests times: preparation $((prepared - started)) s, VM $(( $(date +%s) - prepared )) s; logs in $cache/last-run/"
exit "$status"
