/*
 * Checks cross/compat/glibc236compat.c where it is used: built for arm64 against the bookworm
 * sysroot, run under qemu-aarch64 with bookworm's glibc (cross/compat/test-glibc236compat.sh).
 * Prints one line per failed check and exits 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *, char **, int);
long long __isoc23_strtoll(const char *, char **, int);
unsigned long __isoc23_strtoul(const char *, char **, int);
int __isoc23_sscanf(const char *, const char *, ...);
size_t strlcpy(char *, const char *, size_t);
size_t strlcat(char *, const char *, size_t);

static int failures;
#define CHECK(condition) \
    do { if (!(condition)) { printf("FAILED line %d: %s\n", __LINE__, #condition); failures++; } } while (0)

int main(void) {
    char *end;
    CHECK(__isoc23_strtol("  -42xyz", &end, 10) == -42 && strcmp(end, "xyz") == 0);
    CHECK(__isoc23_strtol("0x7fffffffffffffff", NULL, 16) == 0x7fffffffffffffffL);
    CHECK(__isoc23_strtol("ff", NULL, 16) == 255);
    CHECK(__isoc23_strtoll("-9223372036854775808", NULL, 10) == (-9223372036854775807LL - 1));
    CHECK(__isoc23_strtoul("4294967296", &end, 0) == 4294967296UL && *end == '\0');
    CHECK(__isoc23_strtoul("017", NULL, 0) == 15);

    int first = 0, second = 0;
    char word[8] = "";
    CHECK(__isoc23_sscanf("12 0x1f cpu", "%d %x %7s", &first, &second, word) == 3);
    CHECK(first == 12 && second == 31 && strcmp(word, "cpu") == 0);
    CHECK(__isoc23_sscanf("", "%d", &first) == EOF);

    char buffer[6];
    CHECK(strlcpy(buffer, "hello world", sizeof buffer) == 11 && strcmp(buffer, "hello") == 0);
    CHECK(strlcpy(buffer, "hi", sizeof buffer) == 2 && strcmp(buffer, "hi") == 0);
    buffer[0] = 'x';
    CHECK(strlcpy(buffer, "abc", 0) == 3 && buffer[0] == 'x');
    strcpy(buffer, "ab");
    CHECK(strlcat(buffer, "cdefgh", sizeof buffer) == 8 && strcmp(buffer, "abcde") == 0);
    CHECK(strlcat(buffer, "z", sizeof buffer) == 6 && strcmp(buffer, "abcde") == 0);
    memset(buffer, 'q', sizeof buffer);  /* no terminator within size: the BSD result is size + strlen */
    CHECK(strlcat(buffer, "abc", sizeof buffer) == sizeof buffer + 3);

    if (failures == 0) printf("glibc236compat: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
