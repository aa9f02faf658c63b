#include "grad_mode.h"

#include "../core/error.h"

MT_HOT_TLS _Thread_local bool mt_grad_enabled = true;
MT_HOT_TLS _Thread_local bool mt_inference_mode = false;
bool mt_anomaly_enabled = false;
bool mt_anomaly_check_nan = true;
const char mt_inference_save_message[] =
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.";

/* Outside inference mode an inference tensor's missing version counter
 * would hide the write from autograd. */
int mt_inference_check_write(const mt_tensor *target)
{
    if (target && target->storage->inference && !mt_inference_mode)
        return mt_error(MT_ERR_RUNTIME,
                        "Inplace update to inference tensor outside InferenceMode is not "
                        "allowed.You can make a clone to get a normal tensor before doing inplace "
                        "update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
    return 0;
}
