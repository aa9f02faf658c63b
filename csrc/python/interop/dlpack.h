/* The DLPack exchange structs (ABI version 1.x), written from the public
 * specification at https://dmlc.github.io/dlpack/latest/c_api.html. Only the
 * parts minitorch uses: CPU devices and the basic element types. */
#ifndef MT_PYTHON_DLPACK_H
#define MT_PYTHON_DLPACK_H

#include "../types/common.h"

#include <stdint.h>

#define MT_DLPACK_MAJOR 1
#define MT_DLPACK_MINOR 0

enum { kDLCPU = 1, kDLCUDAHost = 3 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means compact row-major */
    uint64_t byte_offset;
} DLTensor;

/* The legacy (unversioned) managed tensor, capsule name "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)

/* The versioned managed tensor, capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* A tensor viewing the memory of a DLPack capsule, or of an object with
 * __dlpack__ (asked for a versioned capsule first). */
PyObject *mtpy_from_dlpack_object(PyObject *obj);

#endif
