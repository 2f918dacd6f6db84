#!/usr/bin/env bash
# Builds (once) gpio-sim for kernel KVER, which Debian does not build (CONFIG_GPIO_SIM and
# CONFIG_IRQ_SIM are off): drivers/gpio/gpio-sim.c, drivers/gpio/gpiolib.h and kernel/irq/irq_sim.c
# from Debian's linux-source package, as two out-of-tree modules against linux-headers-KVER.
# irq_sim.c calls handle_simple_irq(irq_to_desc(irq)), and irq_to_desc is not exported to modules:
# generic_handle_irq(irq) does the same for a simple-irq descriptor. Prints the directory holding
# irq_sim.ko and gpio-sim.ko (load in that order), keyed by the kernel, the source package's version
# and this script.
#
#   build-gpio-sim.sh KVER CACHE_DIR
set -euo pipefail

kver=$1 cache=$2
series=$(cut -d. -f1,2 <<<"$kver")
source_package=linux-source-$series
tarball=/usr/src/$source_package.tar.xz
headers=/lib/modules/$kver/build

[[ -f $tarball ]] || { echo "kernel tests: no $tarball: apt-get install $source_package" >&2; exit 1; }
[[ -d $headers ]] || { echo "kernel tests: no $headers: apt-get install linux-headers-$kver" >&2; exit 1; }
source_version=$(dpkg-query -W -f='${Version}' "$source_package")
key=$( { echo "$kver $source_version"; cat "$0"; } | sha256sum | cut -c1-16)
out=$cache/gpio-sim-$kver-$key
if [[ -f $out/gpio-sim.ko && -f $out/irq_sim.ko ]]; then echo "$out"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
top=$source_package
tar -xJf "$tarball" -C "$work" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c"
mkdir "$work/build"
cp "$work/$top/drivers/gpio/gpio-sim.c" "$work/$top/drivers/gpio/gpiolib.h" "$work/$top/kernel/irq/irq_sim.c" "$work/build/"
cd "$work/build"
grep -q 'handle_simple_irq(irq_to_desc(irqnum));' irq_sim.c \
    || { echo "kernel tests: $source_package's irq_sim.c changed: adapt build-gpio-sim.sh" >&2; exit 1; }
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' irq_sim.c
# Built into the kernel, irq_sim.c needs no module boilerplate; as a module it needs a licence (GPL,
# or its GPL-only imports are refused).
cat >>irq_sim.c <<'C'

#include <linux/module.h>
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("irq_sim, built out of tree for gpio-sim");
C
echo 'obj-m := irq_sim.o gpio-sim.o' >Kbuild
make -s -C "$headers" M="$PWD" modules >make.log 2>&1 || { cat make.log >&2; exit 1; }
mkdir -p "$out"
cp irq_sim.ko gpio-sim.ko "$out/"
echo "$out"
