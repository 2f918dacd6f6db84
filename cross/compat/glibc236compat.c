/*
 * The glibc symbols newer than 2.36 that Debian sid's static Swift runtime calls, defined on
 * top of the functions bookworm's glibc 2.36 has, so that an arm64 build linked against a
 * bookworm sysroot runs on Debian 12 and Raspberry Pi OS bookworm (cross/README.md).
 *
 * glibc 2.38 gave strtol and friends, and the scanf family, C23 behaviour under new names
 * (__isoc23_*): they also accept a "0b" binary prefix (base 0 or 2) and "%b". Here they keep
 * the old behaviour on such input and agree with the new functions on everything else.
 * strlcpy and strlcat arrived in glibc 2.38; these are the BSD semantics glibc documents.
 * cross/compat/test-glibc236compat.c checks each one under qemu-aarch64 against bookworm's libc.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *restrict text, char **restrict end, int base) {
    return strtol(text, end, base);
}

long long __isoc23_strtoll(const char *restrict text, char **restrict end, int base) {
    return strtoll(text, end, base);
}

unsigned long __isoc23_strtoul(const char *restrict text, char **restrict end, int base) {
    return strtoul(text, end, base);
}

int __isoc23_sscanf(const char *restrict text, const char *restrict format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned = vsscanf(text, format, arguments);
    va_end(arguments);
    return assigned;
}

size_t strlcpy(char *restrict destination, const char *restrict source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(destination, source, copied);
        destination[copied] = '\0';
    }
    return length;
}

size_t strlcat(char *restrict destination, const char *restrict source, size_t size) {
    size_t used = strnlen(destination, size);
    if (used == size)
        return size + strlen(source);
    return used + strlcpy(destination + used, source, size - used);
}
