/* Thread-local grad mode: no_grad / enable_grad / inference_mode; and the
 * process-wide anomaly mode (autograd.detect_anomaly). */
#ifndef MT_AUTOGRAD_GRAD_MODE_H
#define MT_AUTOGRAD_GRAD_MODE_H

#include <stdbool.h>

#include "../core/hot.h"

extern _Thread_local bool mt_grad_enabled MT_HOT_TLS;
extern _Thread_local bool mt_inference_mode MT_HOT_TLS;
/* Anomaly mode: nodes remember where they were made, a failing node reports
 * it, and (check_nan) a node returning NaN fails. */
extern bool mt_anomaly_enabled;
extern bool mt_anomaly_check_nan;

#endif
