/* tessera: the umbrella header. Include this, link with `pkg-config --libs tessera`. */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include "tessera/core.h"
#include "tessera/io.h"
#include "tessera/j2k.h"
#include "tessera/resize.h"
#include "tessera/layout.h"
#include "tessera/carve.h"
#include "tessera/migrate.h"

#endif
