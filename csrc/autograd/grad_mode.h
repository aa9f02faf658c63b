/* Thread-local grad mode: no_grad / enable_grad / inference_mode; and the
 * process-wide anomaly mode (autograd.detect_anomaly). */
#ifndef MT_AUTOGRAD_GRAD_MODE_H
#define MT_AUTOGRAD_GRAD_MODE_H

#include <stdbool.h>

#include "../core/hot.h"
#include "../core/tensor.h"

extern _Thread_local bool mt_grad_enabled MT_HOT_TLS;
extern _Thread_local bool mt_inference_mode MT_HOT_TLS;
/* torch's refusal to save an inference tensor for backward (the recording
 * runner and custom Functions' save_for_backward). */
extern const char mt_inference_save_message[];
/* -1 with torch's error when target (a tensor about to be written in place)
 * is an inference tensor and inference mode is off. */
int mt_inference_check_write(const mt_tensor *target);
/* Anomaly mode: nodes remember where they were made, a failing node reports
 * it, and (check_nan) a node returning NaN fails. */
extern bool mt_anomaly_enabled;
extern bool mt_anomaly_check_nan;

#endif
