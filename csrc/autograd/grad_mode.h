/* Thread-local grad mode: no_grad / enable_grad / inference_mode. */
#ifndef MT_AUTOGRAD_GRAD_MODE_H
#define MT_AUTOGRAD_GRAD_MODE_H

#include <stdbool.h>

extern _Thread_local bool mt_grad_enabled;
extern _Thread_local bool mt_inference_mode;

#endif
