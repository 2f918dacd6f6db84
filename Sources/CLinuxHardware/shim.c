// SwiftPM needs one translation unit per C target; all wrappers are static inline in the header.
#include "CLinuxHardware.h"
