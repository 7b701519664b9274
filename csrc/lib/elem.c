/* Element kinds and the logical types they carry. */
#include "simdfilter.h"

const char *sf_elem_name(sf_elem e) {
    static const char *const names[SF_ELEM_COUNT] = {"u8", "u16", "u32", "u64", "f32", "f64"};
    return (unsigned)e < SF_ELEM_COUNT ? names[e] : NULL;
}

sf_elem sf_type_elem(sf_type t) {
    static const sf_elem elems[SF_TYPE_COUNT] = {
        [SF_T_BOOL] = SF_U8,  [SF_T_I8] = SF_U8,   [SF_T_U8] = SF_U8,
        [SF_T_I16] = SF_U16,  [SF_T_U16] = SF_U16, [SF_T_I32] = SF_U32,
        [SF_T_U32] = SF_U32,  [SF_T_I64] = SF_U64, [SF_T_U64] = SF_U64,
        [SF_T_F32] = SF_F32,  [SF_T_F64] = SF_F64, [SF_T_TIME64] = SF_U64,
    };
    return (unsigned)t < SF_TYPE_COUNT ? elems[t] : SF_ELEM_COUNT;
}
