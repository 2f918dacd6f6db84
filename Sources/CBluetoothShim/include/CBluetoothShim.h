#ifndef CBLUETOOTHSHIM_H
#define CBLUETOOTHSHIM_H

// Thin C wrappers for the parts of the POSIX, termios and BlueZ APIs that Swift cannot import
// directly (function-like macros, platform-specific flag spellings, ioctl request numbers).
// Every function returns -1 and leaves errno set on failure, so Swift can map errno to a
// user-facing error without guessing.

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>

#if defined(__linux__)
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <linux/rfkill.h>
#endif

// MARK: - Descriptors

/// A pipe whose ends are close-on-exec and non-blocking (used to wake poll()).
/// In the .c file because pipe2 needs _GNU_SOURCE, which must not leak into Swift's view of libc.
int bls_pipe(int fds[2]);

static inline int bls_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/// open(2) is variadic and cannot be called from Swift on every platform.
static inline int bls_open_serial(const char *path) {
    return open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

/// Creates or truncates a capture file (open(2) is variadic, so Swift cannot pass the mode).
/// In the .c file, which is built with 64-bit file offsets: on armhf a capture could otherwise
/// not grow past 2 GiB (EFBIG).
int bls_create_file(const char *path);

// MARK: - TCP

static inline int bls_sock_stream(void) { return SOCK_STREAM; }

/// A non-blocking, close-on-exec stream socket for a non-blocking connect().
static inline int bls_tcp_socket(int family) {
#if defined(__linux__)
    return socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP);
#else
    int fd = socket(family, SOCK_STREAM, IPPROTO_TCP);
    if (fd < 0) return -1;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (bls_set_nonblocking(fd) != 0) { int e = errno; close(fd); errno = e; return -1; }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
    return fd;
#endif
}

static inline int bls_set_tcp_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/// The pending error of a socket after a non-blocking connect (0 when connected).
static inline int bls_socket_pending_error(int fd) {
    int value = 0;
    socklen_t length = sizeof value;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0) return errno;
    return value;
}

/// write(2) that never raises SIGPIPE on a socket whose peer has gone.
static inline ssize_t bls_send(int fd, const void *bytes, size_t count, int is_socket) {
#if defined(__linux__)
    if (is_socket) return send(fd, bytes, count, MSG_NOSIGNAL);
#endif
    (void)is_socket;
    return write(fd, bytes, count);
}

/// Writes the buffers in order with one system call: sendmsg(MSG_NOSIGNAL) on a socket (a broken
/// peer gives EPIPE, not SIGPIPE), writev otherwise. Returns the bytes written or -1.
ssize_t bls_write_vector(int fd, const struct iovec *buffers, int count, int is_socket);

/// Receives up to `count` (at most 32) pending datagrams in one recvmmsg(MSG_DONTWAIT), the i-th
/// into `buffer + i * slot`, its length in `lengths[i]` (slot + 1 when it was truncated). Returns
/// how many were received, or -1 with errno set (EAGAIN when none was pending).
int bls_receive_datagrams(int fd, uint8_t *buffer, size_t slot, int count, size_t *lengths);

// MARK: - Serial ports (implemented in CBluetoothShim.c)

/// The baud rates this platform's termios can set, ascending. Returns the count.
size_t bls_serial_supported_baud_rates(const uint32_t **rates);

/// Puts a tty into raw 8N1 at `baud`, with RTS/CTS flow control when `flow` is non-zero.
/// Fails with EINVAL when the rate is not in bls_serial_supported_baud_rates().
int bls_serial_configure_raw(int fd, uint32_t baud, int flow);

/// Opens a pseudo-terminal master (raw, non-blocking) and writes the slave's path into `name`.
int bls_open_pty_master(char *name, size_t length);

// MARK: - Linux HCI user channel

/// An unbound raw HCI socket; fails with EAFNOSUPPORT when the kernel has no Bluetooth.
static inline int bls_hci_socket(void) {
#if defined(__linux__)
    return socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI);
#else
    errno = EAFNOSUPPORT;
    return -1;
#endif
}

/// Sets `*is_up` from HCIGETDEVINFO; fails with ENODEV when hciN does not exist.
static inline int bls_hci_device_is_up(int fd, uint16_t index, int *is_up) {
#if defined(__linux__)
    struct hci_dev_info info;
    memset(&info, 0, sizeof info);
    info.dev_id = index;
    if (ioctl(fd, HCIGETDEVINFO, (void *)&info) != 0) return -1;
    *is_up = (info.flags & (1u << HCI_UP)) != 0;
    return 0;
#else
    (void)fd; (void)index; (void)is_up;
    errno = EAFNOSUPPORT;
    return -1;
#endif
}

/// Powers hciN down (HCIDEVDOWN). Blocking: the kernel sends HCI commands and may wait seconds for
/// the controller. Needs CAP_NET_ADMIN (EPERM without); EBUSY while another socket holds the user channel.
static inline int bls_hci_device_down(int fd, uint16_t index) {
#if defined(__linux__)
    return ioctl(fd, HCIDEVDOWN, (unsigned long)index);
#else
    (void)fd; (void)index;
    errno = EAFNOSUPPORT;
    return -1;
#endif
}

/// Binds the socket to hciN's user channel, giving this process exclusive raw access.
static inline int bls_hci_bind_user_channel(int fd, uint16_t index) {
#if defined(__linux__)
    struct sockaddr_hci address;
    memset(&address, 0, sizeof address);
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = index;
    address.hci_channel = HCI_CHANNEL_USER;
    return bind(fd, (struct sockaddr *)&address, sizeof address);
#else
    (void)fd; (void)index;
    errno = EAFNOSUPPORT;
    return -1;
#endif
}

// MARK: - rfkill

/// Clears the soft block of rfkill switch `idx` (RFKILL_OP_CHANGE with soft=0 written to /dev/rfkill,
/// as `rfkill unblock IDX` does). /dev/rfkill is normally writable by root only: EACCES otherwise.
/// Fails with ENOENT when the kernel has no rfkill support.
int bls_rfkill_unblock(uint32_t idx);

/// errno for "operation not possible due to RF-kill" (132 on Linux), which Swift may not import.
static inline int bls_erfkill(void) {
#if defined(ERFKILL)
    return ERFKILL;
#else
    return -1;
#endif
}

#endif
