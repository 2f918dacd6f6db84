#ifndef CMONOTONICTIMER_H
#define CMONOTONICTIMER_H

// timerfd and CLOCK_MONOTONIC for the host's timer thread. Swift's Glibc module does not expose
// <sys/timerfd.h>. Every function returns -1 and leaves errno set on failure.

#include <stdint.h>

/// A CLOCK_MONOTONIC timerfd, close-on-exec (blocking reads: the timer thread sleeps in read()).
int bls_timerfd_create(void);

/// Arms `fd` to expire once at `deadline_ns` on CLOCK_MONOTONIC (absolute); 0 disarms it.
int bls_timerfd_arm(int fd, int64_t deadline_ns);

/// Blocks until the timer expires; returns the expiration count or -1.
int64_t bls_timerfd_wait(int fd);

/// CLOCK_MONOTONIC now, in nanoseconds.
int64_t bls_monotonic_now_ns(void);

#endif
