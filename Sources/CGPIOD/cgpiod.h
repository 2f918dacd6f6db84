// libgpiod's header, found through pkg-config (libgpiod.pc): only CLinuxHardware's shim includes it.
#include <gpiod.h>
