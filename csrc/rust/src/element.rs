//! The element types, and how a Rust range over them becomes the C library's
//! inclusive range.

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};

use crate::ffi;
use crate::sys::{self, SfBound, SfRange};

/// The element types simdfilter filters: `u8`, `u16`, `u32`, `u64`, `i8`,
/// `i16`, `i32`, `i64`, `f32` and `f64`.
///
/// The trait is sealed (it cannot be implemented outside this crate): each
/// type maps to one of the C library's types, whose kernels it runs.
///
/// Integers compare as integers of their own type. Floats compare as IEEE
/// numbers: NaN is never in a range (and a NaN bound makes the range empty),
/// `-0.0 == 0.0`, and infinities are ordinary values at the ends.
///
/// ```
/// use simdfilter::filter_indexes;
///
/// assert_eq!(filter_indexes(&[-3i8, 0, 7], -5..=0), [0, 1]);
/// assert_eq!(filter_indexes(&[f64::NAN, -0.0, 2.5], 0.0..=f64::INFINITY), [1, 2]);
/// ```
pub trait Element: private::Sealed + Copy + PartialOrd + Debug + Send + Sync + 'static {}

pub(crate) mod private {
    use std::os::raw::c_int;

    /// What the C library needs to know about an element type; not nameable
    /// outside the crate, which seals [`Element`](super::Element).
    pub trait Sealed: crate::ffi::Plain {
        /// The `sf_type` (the domain bounds are compared in).
        const TYPE: c_int;
        /// The `sf_elem` (the kernels that run).
        const ELEM: c_int;
        /// The value as a bound, exactly.
        fn bound(self) -> crate::sys::SfBound;
    }
}

macro_rules! element {
    ($t:ty, $ty:ident, $elem:ident, $bound:ident, $as:ty) => {
        impl private::Sealed for $t {
            const TYPE: std::os::raw::c_int = sys::$ty;
            const ELEM: std::os::raw::c_int = sys::$elem;
            fn bound(self) -> SfBound {
                SfBound::$bound(<$as>::from(self))
            }
        }
        impl Element for $t {}
    };
}

element!(u8, SF_T_U8, SF_U8, uint, u64);
element!(u16, SF_T_U16, SF_U16, uint, u64);
element!(u32, SF_T_U32, SF_U32, uint, u64);
element!(u64, SF_T_U64, SF_U64, uint, u64);
element!(i8, SF_T_I8, SF_U8, int, i64);
element!(i16, SF_T_I16, SF_U16, int, i64);
element!(i32, SF_T_I32, SF_U32, int, i64);
element!(i64, SF_T_I64, SF_U64, int, i64);
element!(f32, SF_T_F32, SF_F32, float, f64);
element!(f64, SF_T_F64, SF_F64, float, f64);

fn end<T: Element>(b: Bound<&T>) -> (SfBound, bool) {
    match b {
        Bound::Included(x) => (x.bound(), true),
        Bound::Excluded(x) => (x.bound(), false),
        Bound::Unbounded => (SfBound::none(), true),
    }
}

/// The C library's inclusive range for `range` on data of type `T`, or `None`
/// when no value of `T` is in it (`5..5`, `10..=5`, a NaN bound, ...). The
/// library resolves the bounds (sf_resolve_range), as it does for Python.
pub(crate) fn resolve<T: Element, R: RangeBounds<T>>(range: &R) -> Option<SfRange> {
    let (lo, lo_closed) = end(range.start_bound());
    let (hi, hi_closed) = end(range.end_bound());
    ffi::resolve_range(T::TYPE, &lo, lo_closed, &hi, hi_closed)
}
