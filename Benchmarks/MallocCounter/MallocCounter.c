// Counts heap allocations for the notify-bench executable.
//
// Why this way: glibc's malloc hooks are gone (2.34), mallinfo2() reports bytes, not a count, and
// dlsym(RTLD_NEXT, "malloc") can itself allocate (dlerror buffers) and recurse. Instead this file
// *defines* malloc & co. An executable's own symbols come first in the dynamic linker's global
// lookup scope, so every call to malloc from the Swift runtime, Foundation-free stdlib and libc
// itself resolves here (the linker exports these symbols because the shared libraries it links
// against reference them). Each definition bumps a relaxed atomic counter and forwards to glibc's
// real allocator through its public internal entry points (__libc_malloc, ...), which never call
// back into these functions. The target is linked only into notify-bench, never into the library
// or the tests.
#include "MallocCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic unsigned long long allocations;

static inline void count_one(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

unsigned long long malloc_counter_allocations(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: the alignment must be a power of two multiple of sizeof(void *).
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
