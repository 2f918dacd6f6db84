// libmosquitto's client API, found through pkg-config (libmosquitto.pc): only MQTTExporter includes it.
#include <mosquitto.h>
#include <sys/eventfd.h>

// The MQTT thread's wake-up descriptor: Glibc's Swift module does not expose eventfd.
static inline int cmosquitto_wake_descriptor(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
