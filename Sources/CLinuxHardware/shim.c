// The i2c-dev and eventfd wrappers are static inline in the header; this unit makes them part of
// the target. The GPIO surface is in gpio_libgpiod1.c and gpio_libgpiod2.c.
#include "CLinuxHardware.h"
