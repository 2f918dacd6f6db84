// The clh_gpio surface over libgpiod 2.x (Debian trixie, Raspberry Pi OS trixie): settings, a line
// config and a request config make a line request, which owns the event fd and an edge-event buffer.
#include "gpiod_api.h"

#if CLH_GPIOD_API_MAJOR == 2

#include "clh_gpio.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Only libgpiod 2.x declares these: a gpiod.h of another API fails here, not at run time.
_Static_assert(GPIOD_LINE_BIAS_AS_IS == 1 && GPIOD_LINE_EDGE_BOTH == 4 && GPIOD_EDGE_EVENT_RISING_EDGE == 1,
               "gpiod.h is neither libgpiod 1.x (no GPIOD_LINE_BULK_MAX_LINES) nor 2.x");

enum { EDGE_BUFFER_CAPACITY = 16 };

struct clh_gpio_chip {
    struct gpiod_chip *handle;
};

struct clh_gpio_request {
    struct gpiod_line_request *handle;
    /// NULL for a plain input request.
    struct gpiod_edge_event_buffer *events;
    unsigned int offset;
};

static int failure_errno(void) { return errno > 0 ? errno : EIO; }

static void copy_name(const char *name, char *buffer, size_t capacity) {
    if (capacity == 0) return;
    strncpy(buffer, name, capacity - 1);
    buffer[capacity - 1] = '\0';
}

int clh_gpiod_api_major(void) { return 2; }

const char *clh_gpiod_library_version(void) { return gpiod_api_version(); }

static bool is_unsigned_number(const char *text) {
    for (; *text; text++) {
        if (*text < '0' || *text > '9') return false;
    }
    return true;
}

static struct gpiod_chip *open_path_format(const char *format, const char *argument) {
    char path[4096];
    if (snprintf(path, sizeof path, format, argument) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return gpiod_chip_open(path);
}

static int is_gpiochip_entry(const struct dirent *entry) { return strncmp(entry->d_name, "gpiochip", 8) == 0; }

/// The chip whose label is `label`, trying /dev/gpiochip* in name order as libgpiod 1.6 did; NULL
/// with errno ENOENT when none has it.
static struct gpiod_chip *open_by_label(const char *label) {
    struct dirent **entries;
    int count = scandir("/dev", &entries, is_gpiochip_entry, alphasort);
    if (count < 0) return NULL;
    struct gpiod_chip *found = NULL;
    for (int i = 0; i < count; i++) {
        if (!found) {
            struct gpiod_chip *chip = open_path_format("/dev/%s", entries[i]->d_name);
            struct gpiod_chip_info *info = chip ? gpiod_chip_get_info(chip) : NULL;
            if (info && strcmp(gpiod_chip_info_get_label(info), label) == 0) found = chip;
            if (info) gpiod_chip_info_free(info);
            if (chip && chip != found) gpiod_chip_close(chip);
        }
        free(entries[i]);
    }
    free(entries);
    if (!found) errno = ENOENT;
    return found;
}

/// The lookup order of libgpiod 1.6's gpiod_chip_open_lookup, which 2.x dropped: a number is
/// /dev/gpiochipN; anything else is a label, then a /dev path or a name under /dev.
static struct gpiod_chip *open_lookup(const char *name) {
    if (is_unsigned_number(name)) {
        unsigned long number = strtoul(name, NULL, 10);
        char path[64];
        snprintf(path, sizeof path, "/dev/gpiochip%lu", number);
        return gpiod_chip_open(path);
    }
    struct gpiod_chip *chip = open_by_label(name);
    if (chip) return chip;
    if (strncmp(name, "/dev/", 5) == 0) return gpiod_chip_open(name);
    return open_path_format("/dev/%s", name);
}

clh_gpio_chip *clh_gpio_chip_open(const char *name, int *error) {
    clh_gpio_chip *chip = malloc(sizeof *chip);
    if (!chip) {
        *error = ENOMEM;
        return NULL;
    }
    errno = 0;
    chip->handle = open_lookup(name);
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

int clh_gpio_chip_num_lines(clh_gpio_chip *chip) {
    errno = 0;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip->handle);
    if (!info) return -failure_errno();
    int count = (int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return count;
}

int clh_gpio_chip_find_line(clh_gpio_chip *chip, const char *name) {
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip->handle, name);
    return offset < 0 ? -failure_errno() : offset;
}

int clh_gpio_line_name(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity) {
    errno = 0;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->handle, offset);
    if (!info) return -failure_errno();
    const char *name = gpiod_line_info_get_name(info);
    if (name) copy_name(name, buffer, capacity);
    gpiod_line_info_free(info);
    return name ? 1 : 0;
}

int clh_gpio_line_consumer(clh_gpio_chip *chip, unsigned int offset, char *buffer, size_t capacity) {
    errno = 0;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->handle, offset);
    if (!info) return -failure_errno();
    bool used = gpiod_line_info_is_used(info);
    if (used) {
        const char *consumer = gpiod_line_info_get_consumer(info);
        copy_name(consumer ? consumer : "", buffer, capacity);
    }
    gpiod_line_info_free(info);
    return used ? 1 : 0;
}

static enum gpiod_line_edge edge_detection(clh_gpio_edges edges) {
    switch (edges) {
    case CLH_GPIO_EDGES_RISING: return GPIOD_LINE_EDGE_RISING;
    case CLH_GPIO_EDGES_FALLING: return GPIOD_LINE_EDGE_FALLING;
    case CLH_GPIO_EDGES_BOTH: return GPIOD_LINE_EDGE_BOTH;
    case CLH_GPIO_EDGES_NONE: break;
    }
    return GPIOD_LINE_EDGE_NONE;
}

static enum gpiod_line_bias line_bias(clh_gpio_bias bias) {
    switch (bias) {
    case CLH_GPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    case CLH_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case CLH_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    case CLH_GPIO_BIAS_AS_IS: break;
    }
    return GPIOD_LINE_BIAS_AS_IS;
}

/// The kernel's line request for one input line; NULL with errno set.
static struct gpiod_line_request *request_line(struct gpiod_chip *chip, unsigned int offset, clh_gpio_edges edges,
                                               clh_gpio_bias bias, const char *consumer) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    struct gpiod_line_request *request = NULL;
    if (!settings || !line_config || !request_config) {
        errno = ENOMEM;
        goto done;
    }
    // Edge timestamps on the monotonic clock, as the 1.6 path and the pulse receiver's timeout expect.
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0
        || gpiod_line_settings_set_edge_detection(settings, edge_detection(edges)) < 0
        || gpiod_line_settings_set_bias(settings, line_bias(bias)) < 0
        || gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0
        || gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) < 0) {
        goto done;
    }
    gpiod_request_config_set_consumer(request_config, consumer);
    request = gpiod_chip_request_lines(chip, request_config, line_config);
done:
    {
        int saved = errno;
        gpiod_request_config_free(request_config);
        gpiod_line_config_free(line_config);
        gpiod_line_settings_free(settings);
        errno = saved;
    }
    return request;
}

clh_gpio_request *clh_gpio_request_input(clh_gpio_chip *chip, unsigned int offset, clh_gpio_edges edges,
                                         clh_gpio_bias bias, const char *consumer, int *error) {
    clh_gpio_request *request = calloc(1, sizeof *request);
    if (!request) {
        *error = ENOMEM;
        return NULL;
    }
    request->offset = offset;
    if (edges != CLH_GPIO_EDGES_NONE) {
        request->events = gpiod_edge_event_buffer_new(EDGE_BUFFER_CAPACITY);
        if (!request->events) {
            *error = ENOMEM;
            free(request);
            return NULL;
        }
    }
    errno = 0;
    request->handle = request_line(chip->handle, offset, edges, bias, consumer);
    if (!request->handle) {
        *error = failure_errno();
        gpiod_edge_event_buffer_free(request->events);
        free(request);
        return NULL;
    }
    return request;
}

int clh_gpio_request_value(clh_gpio_request *request) {
    errno = 0;
    enum gpiod_line_value value = gpiod_line_request_get_value(request->handle, request->offset);
    if (value == GPIOD_LINE_VALUE_ERROR) return -failure_errno();
    return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

int clh_gpio_request_event_fd(clh_gpio_request *request) {
    if (!request->events) return -EPERM;
    return gpiod_line_request_get_fd(request->handle);
}

int clh_gpio_request_read_edges(clh_gpio_request *request, clh_gpio_edge_event *events, unsigned int capacity) {
    if (!request->events) return -EPERM;
    size_t wanted = capacity < EDGE_BUFFER_CAPACITY ? capacity : EDGE_BUFFER_CAPACITY;
    if (wanted == 0) return 0;
    errno = 0;
    int count = gpiod_line_request_read_edge_events(request->handle, request->events, wanted);
    if (count < 0) return -failure_errno();
    int delivered = 0;
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->events, (unsigned long)i);
        if (!event) continue;
        events[delivered].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        events[delivered].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        delivered++;
    }
    return delivered;
}

void clh_gpio_request_release(clh_gpio_request *request) {
    gpiod_line_request_release(request->handle);
    gpiod_edge_event_buffer_free(request->events);
    free(request);
}

#endif
