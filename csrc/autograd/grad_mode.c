#include "grad_mode.h"

MT_HOT_TLS _Thread_local bool mt_grad_enabled = true;
MT_HOT_TLS _Thread_local bool mt_inference_mode = false;
bool mt_anomaly_enabled = false;
bool mt_anomaly_check_nan = true;
