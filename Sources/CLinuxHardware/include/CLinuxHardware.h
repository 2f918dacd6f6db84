#ifndef CLINUXHARDWARE_H
#define CLINUXHARDWARE_H

// Thin wrappers over i2c-dev ioctls so Swift never touches variadic ioctl(), and the GPIO surface
// over libgpiod 1.6 or 2.x (clh_gpio.h).
// Every wrapper returns a negative errno on failure, which keeps error mapping in one place.

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include "clh_gpio.h"

static inline int clh_i2c_set_address(int fd, uint16_t address) {
    return ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0 ? -errno : 0;
}

/// Raw combined transfer: all messages are sent with repeated starts and one final stop.
static inline int clh_i2c_rdwr(int fd, struct i2c_msg *messages, uint32_t count) {
    struct i2c_rdwr_ioctl_data data;
    data.msgs = messages;
    data.nmsgs = count;
    return ioctl(fd, I2C_RDWR, &data) < 0 ? -errno : 0;
}

static inline uint16_t clh_i2c_m_rd(void) { return I2C_M_RD; }

/// One SMBus transaction through the I2C_SMBUS ioctl (read_write is I2C_SMBUS_READ/WRITE).
static inline int clh_i2c_smbus(int fd, uint8_t read_write, uint8_t command, uint32_t size,
                                union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data args;
    args.read_write = read_write;
    args.command = command;
    args.size = size;
    args.data = data;
    return ioctl(fd, I2C_SMBUS, &args) < 0 ? -errno : 0;
}

static inline int clh_smbus_read_byte(int fd) {
    int32_t r = i2c_smbus_read_byte(fd);
    return r < 0 ? -errno : r;
}
static inline int clh_smbus_write_byte(int fd, uint8_t value) {
    return i2c_smbus_write_byte(fd, value) < 0 ? -errno : 0;
}
static inline int clh_smbus_read_byte_data(int fd, uint8_t command) {
    int32_t r = i2c_smbus_read_byte_data(fd, command);
    return r < 0 ? -errno : r;
}
static inline int clh_smbus_write_byte_data(int fd, uint8_t command, uint8_t value) {
    return i2c_smbus_write_byte_data(fd, command, value) < 0 ? -errno : 0;
}
static inline int clh_smbus_read_word_data(int fd, uint8_t command) {
    int32_t r = i2c_smbus_read_word_data(fd, command);
    return r < 0 ? -errno : r;
}
static inline int clh_smbus_write_word_data(int fd, uint8_t command, uint16_t value) {
    return i2c_smbus_write_word_data(fd, command, value) < 0 ? -errno : 0;
}
/// SMBus block read: the device sends its own count first; `values` must hold 32 bytes.
static inline int clh_smbus_read_block_data(int fd, uint8_t command, uint8_t *values) {
    int32_t r = i2c_smbus_read_block_data(fd, command, values);
    return r < 0 ? -errno : r;
}
static inline int clh_smbus_write_block_data(int fd, uint8_t command, uint8_t length, const uint8_t *values) {
    return i2c_smbus_write_block_data(fd, command, length, values) < 0 ? -errno : 0;
}
/// I2C block read of a fixed length (no count byte), what register-file chips like the BME280 expect.
static inline int clh_smbus_read_i2c_block_data(int fd, uint8_t command, uint8_t length, uint8_t *values) {
    int32_t r = i2c_smbus_read_i2c_block_data(fd, command, length, values);
    return r < 0 ? -errno : r;
}

static inline int clh_errno(void) { return errno; }

/// A close-on-exec, non-blocking eventfd used to wake a poll()ing reader thread. Unlike a pipe,
/// writing to it can never raise SIGPIPE, whatever the reader has done. Returns the fd or -errno.
static inline int clh_wake_eventfd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

/// Makes the eventfd readable (adds 1 to its counter); 0 or -errno.
static inline int clh_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == (ssize_t)sizeof one ? 0 : -errno;
}

#endif
