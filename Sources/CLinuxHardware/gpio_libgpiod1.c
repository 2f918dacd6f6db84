// The clh_gpio surface over libgpiod 1.6 (Debian bookworm, Raspberry Pi OS bookworm): line objects
// owned by the chip, gpiod_line_request with a request type and flags, events read from the line's fd.
#include "gpiod_api.h"

#if CLH_GPIOD_API_MAJOR == 1

#include "clh_gpio.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct clh_gpio_chip {
    struct gpiod_chip *handle;
};

struct clh_gpio_request {
    struct gpiod_line *line;
};

/// libgpiod leaves errno at 0 for a few failures (an allocation, an empty iteration).
static int failure_errno(void) { return errno > 0 ? errno : EIO; }

static void copy_name(const char *name, char *buffer, size_t capacity) {
    if (capacity == 0) return;
    strncpy(buffer, name, capacity - 1);
    buffer[capacity - 1] = '\0';
}

int clh_gpiod_api_major(void) { return 1; }

const char *clh_gpiod_library_version(void) { return gpiod_version_string(); }

clh_gpio_chip *clh_gpio_chip_open(const char *name, int *error) {
    clh_gpio_chip *chip = malloc(sizeof *chip);
    if (!chip) {
        *error = ENOMEM;
        return NULL;
    }
    errno = 0;
    chip->handle = gpiod_chip_open_lookup(name);
    if (!chip->handle) {
        *error = failure_errno();
        free(chip);
        return NULL;
    }
    return chip;
}

void clh_gpio_chip_close(clh_gpio_chip *chip) {
    gpiod_chip_close(chip->handle);
    free(chip);
}

int clh_gpio_chip_num_lines(clh_gpio_chip *chip) { return (int)gpiod_chip_num_lines(chip->handle); }

int clh_gpio_chip_find_line(clh_gpio_chip *chip, const char *name) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip->handle, name);
    return line ? (int)gpiod_line_offset(line) : -failure_errno();
}

int clh_gpio_line_name(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->handle, offset);
    if (!line) return -failure_errno();
    const char *name = gpiod_line_name(line);
    if (!name) return 0;
    copy_name(name, buffer, capacity);
    return 1;
}

int clh_gpio_line_consumer(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity) {
    errno = 0;
    // gpiod_chip_get_line re-reads the line's info from the kernel.
    struct gpiod_line *line = gpiod_chip_get_line(chip->handle, offset);
    if (!line) return -failure_errno();
    if (!gpiod_line_is_used(line)) return 0;
    const char *consumer = gpiod_line_consumer(line);
    copy_name(consumer ? consumer : "", buffer, capacity);
    return 1;
}

static int request_type(clh_gpio_edges edges) {
    switch (edges) {
    case CLH_GPIO_EDGES_RISING: return GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
    case CLH_GPIO_EDGES_FALLING: return GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE;
    case CLH_GPIO_EDGES_BOTH: return GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
    case CLH_GPIO_EDGES_NONE: break;
    }
    return GPIOD_LINE_REQUEST_DIRECTION_INPUT;
}

static int bias_flags(clh_gpio_bias bias) {
    switch (bias) {
    case CLH_GPIO_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case CLH_GPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case CLH_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    case CLH_GPIO_BIAS_AS_IS: break;
    }
    return 0;
}

clh_gpio_request *clh_gpio_request_input(clh_gpio_chip *chip, unsigned int offset, clh_gpio_edges edges,
                                         clh_gpio_bias bias, const char *consumer, int *error) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->handle, offset);
    if (!line) {
        *error = failure_errno();
        return NULL;
    }
    clh_gpio_request *request = malloc(sizeof *request);
    if (!request) {
        *error = ENOMEM;
        return NULL;
    }
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = request_type(edges),
        .flags = bias_flags(bias),
    };
    errno = 0;
    if (gpiod_line_request(line, &config, 0) < 0) {
        *error = failure_errno();
        free(request);
        return NULL;
    }
    request->line = line;
    return request;
}

int clh_gpio_request_value(clh_gpio_request *request) {
    errno = 0;
    int value = gpiod_line_get_value(request->line);
    return value < 0 ? -failure_errno() : value;
}

int clh_gpio_request_event_fd(clh_gpio_request *request) {
    errno = 0;
    int fd = gpiod_line_event_get_fd(request->line);
    return fd < 0 ? -failure_errno() : fd;
}

int clh_gpio_request_read_edges(clh_gpio_request *request, clh_gpio_edge_event *events, unsigned int capacity) {
    struct gpiod_line_event raw[16];
    unsigned int wanted = capacity < 16 ? capacity : 16;
    if (wanted == 0) return 0;
    int fd = gpiod_line_event_get_fd(request->line);
    if (fd < 0) return -failure_errno();
    errno = 0;
    int count = gpiod_line_event_read_fd_multiple(fd, raw, wanted);
    if (count < 0) return -failure_errno();
    for (int i = 0; i < count; i++) {
        // Kernels since 5.7 stamp v1 events with CLOCK_MONOTONIC; libgpiod 1.6 splits it into a timespec.
        uint64_t seconds = raw[i].ts.tv_sec > 0 ? (uint64_t)raw[i].ts.tv_sec : 0;
        uint64_t nanoseconds = raw[i].ts.tv_nsec > 0 ? (uint64_t)raw[i].ts.tv_nsec : 0;
        events[i].timestamp_ns = seconds * 1000000000u + nanoseconds;
        events[i].rising = raw[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return count;
}

void clh_gpio_request_release(clh_gpio_request *request) {
    gpiod_line_release(request->line);
    free(request);
}

#endif
