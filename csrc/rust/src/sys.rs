//! The C library's declarations (`csrc/include/simdfilter.h`) restated in
//! Rust: its constants, and the `#[repr(C)]` structs that hold plain data.
//! Nothing here calls C: the calls, and the structs that carry C callbacks,
//! are in `ffi`, whose `layout` test checks these declarations against the
//! sizes and offsets the C compiler reports (layout.c).

use std::os::raw::{c_char, c_int, c_void};

/// `sf_elem`: the element kinds the kernels know.
pub const SF_U8: c_int = 0;
pub const SF_U16: c_int = 1;
pub const SF_U32: c_int = 2;
pub const SF_U64: c_int = 3;
pub const SF_F32: c_int = 4;
pub const SF_F64: c_int = 5;
#[cfg(test)]
pub const SF_ELEM_COUNT: c_int = 6;

/// `sf_type`: what the values mean (the domain a bound is compared in).
pub const SF_T_I8: c_int = 1;
pub const SF_T_U8: c_int = 2;
pub const SF_T_I16: c_int = 3;
pub const SF_T_U16: c_int = 4;
pub const SF_T_I32: c_int = 5;
pub const SF_T_U32: c_int = 6;
pub const SF_T_I64: c_int = 7;
pub const SF_T_U64: c_int = 8;
pub const SF_T_F32: c_int = 9;
pub const SF_T_F64: c_int = 10;
#[cfg(test)]
pub const SF_TYPE_COUNT: c_int = 12;

/// `sf_op`.
pub const SF_OP_INDEX32: c_int = 0;
pub const SF_OP_INDEX64: c_int = 1;
pub const SF_OP_VALUES: c_int = 2;
pub const SF_OP_COUNT: c_int = 3;
pub const SF_OP_MASK8: c_int = 4;

/// `sf_bound_kind`.
const SF_BOUND_NONE: c_int = 0;
const SF_BOUND_INT: c_int = 1;
const SF_BOUND_UINT: c_int = 2;
const SF_BOUND_FLOAT: c_int = 3;

/// `sf_resolve_range` results.
pub const SF_RANGE_EMPTY: c_int = 0;
pub const SF_RANGE_OK: c_int = 1;

/// Status codes of dispatch and `sf_execute`.
pub const SF_OK: c_int = 0;
pub const SF_EUNKNOWN: c_int = -1;
pub const SF_EUNSUPPORTED: c_int = -2;
pub const SF_ENOTBUILT: c_int = -3;
pub const SF_EINVAL: c_int = -7;

/// The most threads one call uses.
pub const SF_MAX_THREADS: usize = 256;

/// `sf_range`: an inclusive, non-empty range in the element's own domain;
/// `invert` nonzero keeps the values outside it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SfRange {
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) flo: f64,
    pub(crate) fhi: f64,
    pub(crate) invert: c_int,
}

/// `sf_bound`: one end of a range, in the data's units.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SfBound {
    pub(crate) kind: c_int,
    pub(crate) i: i64,
    pub(crate) u: u64,
    pub(crate) f: f64,
}

impl SfBound {
    /// Unbounded on this side.
    pub fn none() -> SfBound {
        SfBound {
            kind: SF_BOUND_NONE,
            i: 0,
            u: 0,
            f: 0.0,
        }
    }
    pub fn int(i: i64) -> SfBound {
        SfBound {
            kind: SF_BOUND_INT,
            i,
            u: 0,
            f: 0.0,
        }
    }
    /// A u64; values that fit in i64 go as SF_BOUND_INT, the others as SF_BOUND_UINT.
    pub fn uint(u: u64) -> SfBound {
        if u <= i64::MAX as u64 {
            SfBound::int(u as i64)
        } else {
            SfBound {
                kind: SF_BOUND_UINT,
                i: 0,
                u,
                f: 0.0,
            }
        }
    }
    pub fn float(f: f64) -> SfBound {
        SfBound {
            kind: SF_BOUND_FLOAT,
            i: 0,
            u: 0,
            f,
        }
    }
}

/// `sf_kernel`, of which only `name`, its first field, is read from Rust;
/// the function tables that follow it are C's business.
#[repr(C)]
pub struct SfKernel {
    pub(crate) name: *const c_char,
}

#[repr(C)]
pub struct SfQuery {
    pub(crate) kernel: *const SfKernel,
    pub(crate) op: c_int,
    pub(crate) elem: c_int,
    pub(crate) range: SfRange,
    // Positions to look at: unused here (null: every element).
    pub(crate) within: *const c_void,
    pub(crate) within_count: usize,
    pub(crate) within_wide: c_int,
    // Further ranges (null, 0: `range` alone) and how they combine.
    pub(crate) more: *const SfRange,
    pub(crate) more_count: usize,
    pub(crate) every: c_int,
}

#[repr(C)]
pub struct SfRun {
    pub(crate) data: *const c_void,
    pub(crate) n: usize,
    pub(crate) stride: isize,
    pub(crate) byteswap: c_int,
    pub(crate) base: u64,
    // Nulls and bit-packed bools: unused here (zero: none, not packed).
    pub(crate) null_form: c_int,
    pub(crate) nulls: *const u8,
    pub(crate) null_bit: u64,
    pub(crate) null_stride: isize,
    pub(crate) bit_packed: c_int,
    pub(crate) data_bit: u64,
}

impl SfRun {
    /// `n` elements of `stride` bytes from `data`, native byte order,
    /// positions from 0, no nulls.
    pub fn new(data: *const c_void, n: usize, stride: isize) -> SfRun {
        SfRun {
            data,
            n,
            stride,
            byteswap: 0,
            base: 0,
            null_form: 0,
            nulls: std::ptr::null(),
            null_bit: 0,
            null_stride: 0,
            bit_packed: 0,
            data_bit: 0,
        }
    }
}

/// Size in bytes of one element of kind `elem` (`sf_elem_size`).
pub fn elem_size(elem: c_int) -> usize {
    match elem {
        SF_U8 => 1,
        SF_U16 => 2,
        SF_U32 | SF_F32 => 4,
        SF_U64 | SF_F64 => 8,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uint_bounds_above_i64_max_use_the_uint_kind() {
        assert_eq!(SfBound::uint(5).kind, SF_BOUND_INT);
        assert_eq!(SfBound::uint(u64::MAX).kind, SF_BOUND_UINT);
        assert_eq!(SfBound::uint(u64::MAX).u, u64::MAX);
    }

    #[test]
    fn result_sizes() {
        assert_eq!(elem_size(SF_U8), 1);
        assert_eq!(elem_size(SF_F64), 8);
        assert_eq!(elem_size(SF_ELEM_COUNT), 0);
    }
}
