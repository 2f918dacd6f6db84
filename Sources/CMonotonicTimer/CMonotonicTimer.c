#include "CMonotonicTimer.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/timerfd.h>
#endif

int64_t bls_monotonic_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + (int64_t)now.tv_nsec;
}

#if defined(__linux__)
int bls_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
}

int bls_timerfd_arm(int fd, int64_t deadline_ns) {
    struct itimerspec spec = {0};
    if (deadline_ns > 0) {
        spec.it_value.tv_sec = (time_t)(deadline_ns / 1000000000LL);
        spec.it_value.tv_nsec = (long)(deadline_ns % 1000000000LL);
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int64_t bls_timerfd_wait(int fd) {
    uint64_t expirations = 0;
    for (;;) {
        ssize_t count = read(fd, &expirations, sizeof expirations);
        if (count == (ssize_t)sizeof expirations) return (int64_t)expirations;
        if (count < 0 && errno == EINTR) continue;
        return -1;
    }
}
#else
int bls_timerfd_create(void) { errno = ENOSYS; return -1; }
int bls_timerfd_arm(int fd, int64_t deadline_ns) { (void)fd; (void)deadline_ns; errno = ENOSYS; return -1; }
int64_t bls_timerfd_wait(int fd) { (void)fd; errno = ENOSYS; return -1; }
#endif
