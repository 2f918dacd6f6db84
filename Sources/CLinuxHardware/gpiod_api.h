#ifndef CLH_GPIOD_API_H
#define CLH_GPIOD_API_H

// Which libgpiod API the gpiod.h on the include path has. pkg-config (the CGPIOD system library,
// PKG_CONFIG_PATH) decides which gpiod.h and libgpiod.so the build uses; the header itself then
// decides which shim compiles, so the code can never disagree with the header it is built against.
// libgpiod 1.x defines GPIOD_LINE_BULK_MAX_LINES (its bulk API); 2.x removed the bulk API and
// defines no macro, so its absence means 2.x. gpio_libgpiod2.c then checks 2.x's own enums with
// _Static_assert, so any other gpiod.h fails the build there instead of miscompiling.
#include <gpiod.h>

#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define CLH_GPIOD_API_MAJOR 1
#else
#define CLH_GPIOD_API_MAJOR 2
#endif

#endif
