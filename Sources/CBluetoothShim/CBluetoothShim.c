#if defined(__linux__)
#define _GNU_SOURCE
#endif
// Large-file offsets on 32-bit targets (armhf); a no-op on 64-bit ones.
#define _FILE_OFFSET_BITS 64
#include "CBluetoothShim.h"

#include <stdlib.h>
#include <termios.h>

int bls_create_file(const char *path) {
    /* A new file only, never through a symlink, readable by its owner alone: a capture holds every
       key of the pairings it saw. */
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int bls_pipe(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
#else
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        bls_set_nonblocking(fds[i]);
    }
    return 0;
#endif
}

ssize_t bls_write_vector(int fd, const struct iovec *buffers, int count, int is_socket) {
    if (is_socket) {
        struct msghdr message = {0};
        message.msg_iov = (struct iovec *)buffers;
        message.msg_iovlen = (size_t)count;
#if defined(__linux__)
        return sendmsg(fd, &message, MSG_NOSIGNAL);
#else
        return sendmsg(fd, &message, 0);
#endif
    }
    return writev(fd, buffers, count);
}

int bls_receive_datagrams(int fd, uint8_t *buffer, size_t slot, int count, size_t *lengths) {
#if defined(__linux__)
    enum { batch = 32 };
    struct mmsghdr messages[batch];
    struct iovec vectors[batch];
    int total = count < batch ? count : batch;
    memset(messages, 0, sizeof(messages[0]) * (size_t)total);
    for (int i = 0; i < total; i++) {
        vectors[i].iov_base = buffer + (size_t)i * slot;
        vectors[i].iov_len = slot;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    int received;
    do { received = recvmmsg(fd, messages, (unsigned int)total, MSG_DONTWAIT, NULL); } while (received < 0 && errno == EINTR);
    if (received >= 0) {
        for (int i = 0; i < received; i++) {
            // A datagram longer than a slot cannot be an HCI packet we can frame: say so by a length past the slot.
            lengths[i] = (messages[i].msg_hdr.msg_flags & MSG_TRUNC) ? slot + 1 : messages[i].msg_len;
        }
        return received;
    }
    if (errno != ENOSYS) return -1;
#endif
    (void)count;
    ssize_t length;
    do { length = read(fd, buffer, slot); } while (length < 0 && errno == EINTR);
    if (length < 0) return -1;
    lengths[0] = (size_t)length;
    return 1;
}

// Each entry exists only where the platform defines the speed constant, so the list the user
// sees in an error is exactly what this build can set.
static const struct { uint32_t rate; speed_t constant; } baud_table[] = {
    { 9600, B9600 },
    { 19200, B19200 },
    { 38400, B38400 },
    { 57600, B57600 },
    { 115200, B115200 },
    { 230400, B230400 },
#ifdef B460800
    { 460800, B460800 },
#endif
#ifdef B500000
    { 500000, B500000 },
#endif
#ifdef B576000
    { 576000, B576000 },
#endif
#ifdef B921600
    { 921600, B921600 },
#endif
#ifdef B1000000
    { 1000000, B1000000 },
#endif
#ifdef B1152000
    { 1152000, B1152000 },
#endif
#ifdef B1500000
    { 1500000, B1500000 },
#endif
#ifdef B2000000
    { 2000000, B2000000 },
#endif
#ifdef B2500000
    { 2500000, B2500000 },
#endif
#ifdef B3000000
    { 3000000, B3000000 },
#endif
#ifdef B3500000
    { 3500000, B3500000 },
#endif
#ifdef B4000000
    { 4000000, B4000000 },
#endif
};

#define BAUD_COUNT (sizeof baud_table / sizeof baud_table[0])

size_t bls_serial_supported_baud_rates(const uint32_t **rates) {
    static uint32_t list[BAUD_COUNT];
    for (size_t i = 0; i < BAUD_COUNT; i++) list[i] = baud_table[i].rate;
    *rates = list;
    return BAUD_COUNT;
}

int bls_serial_configure_raw(int fd, uint32_t baud, int flow) {
    speed_t speed = 0;
    int found = 0;
    for (size_t i = 0; i < BAUD_COUNT; i++) {
        if (baud_table[i].rate == baud) { speed = baud_table[i].constant; found = 1; break; }
    }
    if (!found) { errno = EINVAL; return -1; }

    struct termios tio;
    if (tcgetattr(fd, &tio) != 0) return -1;
    cfmakeraw(&tio);
    tio.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB);
    tio.c_cflag |= CS8 | CLOCAL | CREAD;
    if (flow) tio.c_cflag |= CRTSCTS; else tio.c_cflag &= ~(tcflag_t)CRTSCTS;
    tio.c_cc[VMIN] = 1;
    tio.c_cc[VTIME] = 0;
    if (cfsetispeed(&tio, speed) != 0 || cfsetospeed(&tio, speed) != 0) return -1;
    if (tcsetattr(fd, TCSANOW, &tio) != 0) return -1;
    // Stale bytes from before we owned the port would desynchronise H4 framing.
    return tcflush(fd, TCIOFLUSH);
}

int bls_open_pty_master(char *name, size_t length) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd < 0) return -1;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (grantpt(fd) != 0 || unlockpt(fd) != 0) goto fail;
#if defined(__linux__)
    if (ptsname_r(fd, name, length) != 0) goto fail;
#else
    const char *slave = ptsname(fd);
    if (slave == NULL || strlen(slave) >= length) goto fail;
    strcpy(name, slave);
#endif
    struct termios tio;
    if (tcgetattr(fd, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(fd, TCSANOW, &tio);
    }
    if (bls_set_nonblocking(fd) != 0) goto fail;
    return fd;
fail:
    {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
}

int bls_rfkill_unblock(uint32_t idx) {
#if defined(__linux__)
    int fd = open("/dev/rfkill", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    // The original 8-byte event: every kernel with /dev/rfkill accepts it (RFKILL_EVENT_SIZE_V1).
    struct rfkill_event event;
    memset(&event, 0, sizeof event);
    event.idx = idx;
    event.type = RFKILL_TYPE_ALL;
    event.op = RFKILL_OP_CHANGE;
    event.soft = 0;
    ssize_t written;
    do { written = write(fd, &event, sizeof event); } while (written < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    if (written < 0) { errno = saved; return -1; }
    if ((size_t)written != sizeof event) { errno = EIO; return -1; }
    return 0;
#else
    (void)idx;
    errno = ENOENT;
    return -1;
#endif
}
