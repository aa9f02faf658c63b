/* The state __torch_function__ dispatch reads: the mode stack and whether
 * torch function is disabled (DisableTorchFunction), per thread. */
#ifndef MT_PYTHON_TORCH_FUNCTION_STATE_H
#define MT_PYTHON_TORCH_FUNCTION_STATE_H

#include "../types/common.h"

/* A TorchFunctionMode is on the stack and torch function is not disabled. */
bool mt_mode_active(void);
/* Pops the top mode (new reference) / pushes it back. */
PyObject *mt_mode_pop(void);
int mt_mode_push(PyObject *mode);
int mt_torch_function_state_init(PyObject *module);

#endif
