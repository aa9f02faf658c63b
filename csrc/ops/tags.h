/* The kinds an op row can be tagged with (MT_TAGS in the family .def files,
 * csrc/ops.def), as bits, and their published names. A transform or a test
 * that treats a kind of op alike reads the tag instead of keeping a list. */
#ifndef MT_OPS_TAGS_H
#define MT_OPS_TAGS_H

/* X(NAME, "published name") */
#define MT_FOR_TAGS(X)                                                        \
    X(POINTWISE, "pointwise") /* elementwise over broadcast operands */       \
    /* computes on complex tensors: the runner refuses them to other rows */  \
    X(COMPLEX, "complex")                                                     \
    /* an overload torch keeps for old programs: no docstring shows it */     \
    X(DEPRECATED, "deprecated")                                               \
    /* takes a conjugate view as it is (views, copies, metadata, the        \
     * bit's own rows): the runner resolves the bit for every other row */ \
    X(CONJ_VIEW, "conj_view")                                                 \
    /* written for the barebones dtypes (uint16/32/64, complex32) as well: \
     * the runner refuses them to the rows with neither this tag nor       \
     * CONJ_VIEW (whose views, copies and metadata move any element) */  \
    X(BAREBONES, "barebones")                                                 \
    /* computes on uint16/32/64 where torch does: its kernels are looked  \
     * up per dtype in tables with the unsigned entries torch has        \
     * (MT_ON_U, kernels/kernel_rows.h) or compute in the default float, \
     * and a dtype without an entry is refused under torch's kernel name */   \
    X(UNSIGNED, "unsigned")

enum {
#define MT_TAG_BIT(NAME, TEXT) MT_TAG_BIT_##NAME,
    MT_FOR_TAGS(MT_TAG_BIT)
#undef MT_TAG_BIT
};

enum {
#define MT_TAG_VALUE(NAME, TEXT) MT_TAG_##NAME = 1u << MT_TAG_BIT_##NAME,
    MT_FOR_TAGS(MT_TAG_VALUE)
#undef MT_TAG_VALUE
};

#endif
