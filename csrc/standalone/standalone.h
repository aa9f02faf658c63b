/* Running the library from plain C, with no Python interpreter: tensors
 * owned by this file instead of the binding. */
#ifndef MT_OPS_STANDALONE_H
#define MT_OPS_STANDALONE_H

#include "../autograd/call.h"

/* Installs the plain-C owner and autograd backend and reads the op table.
 * Call once before anything else; 0, or -1 with an mt_error. Rows whose impl
 * takes Python data (MT_PYOP) then refuse to run. */
int mt_standalone_init(void);

#endif
