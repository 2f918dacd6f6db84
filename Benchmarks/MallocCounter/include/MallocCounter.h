#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

/// Number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign)
/// made by any thread of this process since it started. Only meaningful in an executable that links
/// the MallocCounter target; see MallocCounter.c for how the counting works.
unsigned long long malloc_counter_allocations(void);

#endif
