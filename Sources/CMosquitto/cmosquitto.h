// libmosquitto's client API, found through pkg-config (libmosquitto.pc): only MQTTExporter includes it.
#include <mosquitto.h>
