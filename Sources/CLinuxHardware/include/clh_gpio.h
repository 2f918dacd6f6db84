#ifndef CLH_GPIO_H
#define CLH_GPIO_H

// One small GPIO surface over libgpiod 1.6 or 2.x, whichever gpiod.h pkg-config found at build time
// (gpio_libgpiod1.c or gpio_libgpiod2.c; the other compiles to nothing). Swift never sees libgpiod's
// types. Failures return NULL with *error set, or a negative errno.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct clh_gpio_chip clh_gpio_chip;
typedef struct clh_gpio_request clh_gpio_request;

typedef enum {
    CLH_GPIO_BIAS_AS_IS = 0,
    CLH_GPIO_BIAS_DISABLED = 1,
    CLH_GPIO_BIAS_PULL_UP = 2,
    CLH_GPIO_BIAS_PULL_DOWN = 3,
} clh_gpio_bias;

typedef enum {
    CLH_GPIO_EDGES_NONE = 0,
    CLH_GPIO_EDGES_RISING = 1,
    CLH_GPIO_EDGES_FALLING = 2,
    CLH_GPIO_EDGES_BOTH = 3,
} clh_gpio_edges;

typedef struct {
    /// CLOCK_MONOTONIC nanoseconds as stamped by the kernel.
    uint64_t timestamp_ns;
    bool rising;
} clh_gpio_edge_event;

/// Longest line or consumer name the kernel reports (GPIO_MAX_NAME_SIZE is 32), with its NUL.
enum { CLH_GPIO_NAME_CAPACITY = 64 };

/// 1 or 2: the libgpiod API this shim was compiled against.
int clh_gpiod_api_major(void);
/// The version of the libgpiod loaded at run time ("1.6.3", "2.2.1").
const char *clh_gpiod_library_version(void);

/// `name` is a number ("0"), a device name ("gpiochip0"), a path ("/dev/gpiochip0") or a chip
/// label, as libgpiod 1.6's gpiod_chip_open_lookup accepts it.
clh_gpio_chip *clh_gpio_chip_open(const char *name, int *error);
void clh_gpio_chip_close(clh_gpio_chip *chip);
/// Number of lines, or -errno.
int clh_gpio_chip_num_lines(clh_gpio_chip *chip);
/// The offset of the line called `name`, or -ENOENT (or another -errno).
int clh_gpio_chip_find_line(clh_gpio_chip *chip, const char *name);
/// Copies the line's name: 1 when it has one, 0 when unnamed, or -errno.
int clh_gpio_line_name(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity);
/// Who holds the line ("used by" in gpioinfo): 1 when in use (consumer copied, possibly empty),
/// 0 when free, or -errno.
int clh_gpio_line_consumer(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity);

/// Requests one line as input, with edge detection unless `edges` is CLH_GPIO_EDGES_NONE.
clh_gpio_request *clh_gpio_request_input(clh_gpio_chip *chip, unsigned int offset, clh_gpio_edges edges,
                                         clh_gpio_bias bias, const char *consumer, int *error);
/// 0 or 1, or -errno.
int clh_gpio_request_value(clh_gpio_request *request);
/// The fd to poll() for edge events, or -errno.
int clh_gpio_request_event_fd(clh_gpio_request *request);
/// Reads up to `capacity` pending edges (blocks when none is pending): the count, or -errno.
int clh_gpio_request_read_edges(clh_gpio_request *request, clh_gpio_edge_event *events, unsigned int capacity);
/// Releases the line and frees the request.
void clh_gpio_request_release(clh_gpio_request *request);

#endif
