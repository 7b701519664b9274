//! Find the positions of the values of a slice that lie in a range, with the
//! fastest SIMD kernel this CPU and OS support (scalar, SSE4.1, AVX2 or
//! AVX-512 on x86-64; NEON or SVE on aarch64), chosen at run time.
//!
//! This is the Rust face of the simdfilter C library: the same kernels, the
//! same run-time dispatch and the same bounds rules as the Python package.
//!
//! ```
//! let years: [u32; 8] = [1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996];
//! assert_eq!(simdfilter::filter_indexes(&years, 1982..=2000), [0, 5, 7]);
//! assert_eq!(simdfilter::filter_values(&years, 1982..=2000), [1992, 1998, 1996]);
//! assert_eq!(simdfilter::count_in_range(&years, 2000..), 3);
//! ```
//!
//! # Ranges
//!
//! A range is any Rust range over the element type: `a..=b`, `a..b`, `a..`,
//! `..b`, `..=b`, `..`, or a pair of [`Bound`](std::ops::Bound)s. It keeps
//! exactly the values [`RangeBounds::contains`] keeps, so `5..5` and `10..=5`
//! are empty and give an empty result, with one exception: NaN never matches,
//! not even `..` (which `contains` says holds NaN, having made no compare).
//! Bounds are resolved by the C library (`sf_resolve_range`), the same code
//! the Python package uses.
//!
//! Floats compare as IEEE numbers: NaN never matches, a NaN bound gives an
//! empty result, `-0.0 == 0.0`, and the infinities are values like any other.
//!
//! ```
//! use simdfilter::filter_indexes;
//!
//! let x = [-1.5f64, -0.0, 0.0, f64::NAN, 2.0, f64::INFINITY];
//! assert_eq!(filter_indexes(&x, 0.0..=2.0), [1, 2, 4]);
//! assert_eq!(filter_indexes(&x, 0.0..2.0), [1, 2]);
//! assert_eq!(filter_indexes(&x, 2.0..), [4, 5]);
//! assert_eq!(filter_indexes(&x, ..), [0, 1, 2, 4, 5]); // not the NaN
//! assert!(filter_indexes(&x, f64::NAN..).is_empty());
//! assert_eq!(filter_indexes(&[-128i8, -1, 0, 127], ..0), [0, 1]);
//! ```
//!
//! # Functions
//!
//! | function | returns |
//! |---|---|
//! | [`filter_indexes`] | ascending positions as `u32` (slices of at most `u32::MAX` elements) |
//! | [`filter_indexes_u64`] | ascending positions as `u64`, any length |
//! | [`filter_indexes_usize`] | ascending positions as `usize`, any length |
//! | [`filter_indexes_into`] | the same as `filter_indexes`, into a vector you reuse |
//! | [`filter_values`] | the matching elements, in order |
//! | [`count_in_range`] | how many match; allocates nothing |
//!
//! # Positions
//!
//! Positions are indexes into the slice, ascending. [`filter_indexes`] gives
//! them as `u32`, the type the C library and the Python package use: half
//! the memory of `usize` on 64-bit targets, for slices of up to `u32::MAX`
//! elements (it panics on longer ones, before any work). For `usize`
//! positions, to index the slice with, call [`filter_indexes_usize`] (one
//! call, any length); `u64` ones come from [`filter_indexes_u64`].
//!
//! ```
//! let data = [10u8, 200, 30, 40];
//! let small: Vec<u32> = simdfilter::filter_indexes(&data, ..100);
//! let idx: Vec<usize> = simdfilter::filter_indexes_usize(&data, ..100);
//! assert_eq!(small, [0, 2, 3]);
//! assert_eq!(idx, [0, 2, 3]);
//! assert_eq!(data[idx[1]], 30);
//! ```
//!
//! [`Filter`] does the same with options: the number of threads, or a kernel
//! for these calls only.
//!
//! # Kernels
//!
//! [`available_kernels`] lists the kernels this machine can run,
//! [`active_kernel`] tells which one is the process default and
//! [`use_kernel`] changes it, for every thread. [`Filter::kernel`] pins a
//! kernel for some calls only.
//!
//! The environment variable `SIMDFILTER_KERNEL=<name>` picks the default
//! kernel as `use_kernel` would. It is read once, at the first call that uses
//! the default kernel (every function of the crate except [`Kernel::get`],
//! [`available_kernels`], [`compiled_kernels`], [`cpu_features`] and calls
//! with a pinned kernel). A name that is no kernel this machine can run
//! leaves the default at the best kernel, and [`environment_error`] returns
//! why (the Python package refuses to import instead; a Rust program that
//! wants that checks `environment_error()` at start).
//!
//! # Building
//!
//! The build script compiles the C library with the compiler named by `CC`
//! (default `cc`; GCC or Clang) and archives it with `AR` (default `ar`).
//! Each kernel file is compiled with its own instruction set's flags, never
//! `-march=native`, so a binary runs on every CPU of its architecture.
//! `SIMDFILTER_DISABLE_KERNELS=avx512,sse41` leaves kernels out (for an old
//! assembler, say). The minimum Rust version is 1.63.

#![deny(unsafe_code)]
#![warn(missing_docs)]
#![warn(rust_2018_idioms)]

#[allow(unsafe_code)]
mod ffi;
mod sys;

mod element;
mod kernel;

use std::ops::RangeBounds;

pub use element::Element;
pub use kernel::{
    active_kernel, available_kernels, compiled_kernels, cpu_features, environment_error,
    kernel_choice, use_kernel, Error, Kernel,
};

/// Options for a call: how many threads, and which kernel.
///
/// `Filter::new()` (or `Filter::default()`) is what the free functions use:
/// automatic threads and the process default kernel. The methods take the
/// same arguments as the free functions of the same meaning.
///
/// ```
/// use simdfilter::{Filter, Kernel};
///
/// let data: Vec<u16> = (0..1000).collect();
/// let one_thread = Filter::new().threads(1);
/// assert_eq!(one_thread.count(&data, 100..200), 100);
///
/// // A kernel for these calls only: other threads keep the default.
/// let scalar = Filter::new().kernel(Kernel::get("scalar").unwrap());
/// assert_eq!(scalar.indexes(&data, 998..), [998, 999]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    threads: usize,
    kernel: Option<Kernel>,
    invert: bool,
}

impl Filter {
    /// Automatic threads, the process default kernel.
    ///
    /// ```
    /// assert_eq!(simdfilter::Filter::new(), simdfilter::Filter::default());
    /// ```
    pub const fn new() -> Filter {
        Filter {
            threads: 0,
            kernel: None,
            invert: false,
        }
    }

    /// Use up to `threads` threads for one call (at most 256). `0`, the
    /// default, lets the library decide from the size of the input: one
    /// thread for small inputs, more for large ones, up to the CPUs this
    /// process may run on. Results never depend on it.
    ///
    /// ```
    /// let data = vec![7u64; 100_000];
    /// let f = simdfilter::Filter::new().threads(2);
    /// assert_eq!(f.count(&data, 7..=7), 100_000);
    /// ```
    pub const fn threads(mut self, threads: usize) -> Filter {
        self.threads = threads;
        self
    }

    /// Run `kernel` in calls made with these options, whatever the process
    /// default is.
    ///
    /// ```
    /// use simdfilter::{available_kernels, Filter};
    ///
    /// let data = [3i32, -4, 5];
    /// for k in available_kernels() {
    ///     assert_eq!(Filter::new().kernel(k).indexes(&data, -4..4), [0, 1]);
    /// }
    /// ```
    pub const fn kernel(mut self, kernel: Kernel) -> Filter {
        self.kernel = Some(kernel);
        self
    }

    /// Keep the values *outside* the range instead (`true`), in the same one
    /// pass: NaN, outside every range, is then kept (NumPy's
    /// `~((a >= lo) & (a <= hi))`), an empty range keeps everything and a
    /// range over every value of the type keeps nothing.
    ///
    /// ```
    /// use simdfilter::Filter;
    ///
    /// let outliers = Filter::new().invert(true);
    /// let data = [0.5f64, 7.0, f64::NAN, -3.0, 1.0];
    /// assert_eq!(outliers.indexes(&data, 0.0..=1.0), [1, 2, 3]);
    /// assert_eq!(outliers.count(&data, 0.0..=1.0), 3);
    /// assert_eq!(outliers.count(&[1u8, 2, 3], ..), 0);
    /// #[allow(clippy::reversed_empty_ranges)]
    /// let empty = 5u8..=1;
    /// assert_eq!(outliers.count(&[1u8, 2, 3], empty), 3);
    /// ```
    pub const fn invert(mut self, invert: bool) -> Filter {
        self.invert = invert;
        self
    }

    /// The query for `range` on `T`, or `None` when nothing can be kept.
    fn query<T: Element, R: RangeBounds<T>>(&self, range: &R) -> Option<ffi::Query> {
        let kernel = self.kernel.map(|k| k.0);
        let range = element::resolve(range);
        let range = if self.invert {
            ffi::invert_range(T::ELEM, range)?
        } else {
            range?
        };
        Some(ffi::Query {
            kernel,
            elem: T::ELEM,
            range,
            more: Vec::new(),
            every: false,
        })
    }

    /// The query for the union of `ranges` on `T` (inverted: what lies in
    /// none of them), or `None` when nothing can be kept. The ranges are
    /// merged first: each one left costs a compare per element.
    fn query_any<T: Element, R: RangeBounds<T>>(&self, ranges: &[R]) -> Option<ffi::Query> {
        let mut resolved: Vec<_> = ranges.iter().filter_map(element::resolve).collect();
        ffi::merge_ranges(T::TYPE, &mut resolved);
        if self.invert {
            if resolved.is_empty() {
                // Outside nothing: everything.
                resolved.push(ffi::invert_range(T::ELEM, None)?);
            } else {
                // A range over every value of the type has nothing outside it.
                resolved = resolved
                    .into_iter()
                    .map(|r| ffi::invert_range(T::ELEM, Some(r)))
                    .collect::<Option<Vec<_>>>()?;
            }
        }
        let (&range, more) = resolved.split_first()?;
        Some(ffi::Query {
            kernel: self.kernel.map(|k| k.0),
            elem: T::ELEM,
            range,
            more: more.to_vec(),
            every: self.invert,
        })
    }

    /// The positions of the elements in *any* of `ranges`, in one pass over
    /// `data` (each loaded vector is compared with every range; the ranges
    /// are merged first), in any order, overlapping or empty. With
    /// [`invert`](Filter::invert), those in none of them (NaN included).
    ///
    /// # Panics
    /// If `data` has more than `u32::MAX` elements.
    ///
    /// ```
    /// let years: [u32; 8] = [1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996];
    /// let f = simdfilter::Filter::new();
    /// assert_eq!(f.indexes_any(&years, &[1930..=1980, 2015..=2020]), [1, 2, 6]);
    /// assert_eq!(f.invert(true).indexes_any(&years, &[1930..=1980, 2015..=2020]), [0, 3, 4, 5, 7]);
    /// assert!(f.indexes_any(&years, &[] as &[std::ops::Range<u32>]).is_empty());
    /// ```
    pub fn indexes_any<T: Element, R: RangeBounds<T>>(&self, data: &[T], ranges: &[R]) -> Vec<u32> {
        check_index32_len(data.len());
        let mut out = Vec::new();
        if let Some(q) = self.query_any(ranges) {
            ok(ffi::index32(&q, data, self.threads, &mut out));
            out.shrink_to_fit();
        }
        out
    }

    /// The elements in any of `ranges`, in order (see [`Filter::indexes_any`]).
    ///
    /// ```
    /// let f = simdfilter::Filter::new();
    /// assert_eq!(f.values_any(&[1.5f64, -2.0, 7.0, 3.0], &[-9.0..0.0, 2.5..9.0]), [-2.0, 7.0, 3.0]);
    /// ```
    pub fn values_any<T: Element, R: RangeBounds<T>>(&self, data: &[T], ranges: &[R]) -> Vec<T> {
        let mut out = Vec::new();
        if let Some(q) = self.query_any(ranges) {
            ok(ffi::values(&q, data, self.threads, &mut out));
            out.shrink_to_fit();
        }
        out
    }

    /// How many elements lie in any of `ranges` (see [`Filter::indexes_any`]).
    ///
    /// ```
    /// let data: Vec<i16> = (-100..100).collect();
    /// let f = simdfilter::Filter::new();
    /// assert_eq!(f.count_any(&data, &[-50..-40, -45..-30, 10..20]), 30);
    /// assert_eq!(f.invert(true).count_any(&data, &[-50..-40, -45..-30, 10..20]), 170);
    /// ```
    pub fn count_any<T: Element, R: RangeBounds<T>>(&self, data: &[T], ranges: &[R]) -> usize {
        match self.query_any(ranges) {
            Some(q) => ok(ffi::count(&q, data, self.threads)),
            None => 0,
        }
    }

    /// [`filter_indexes`] with these options.
    ///
    /// # Panics
    /// If `data` has more than `u32::MAX` elements.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.indexes(&[1u8, 5, 9], 4..), [1, 2]);
    /// ```
    pub fn indexes<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> Vec<u32> {
        let mut out = Vec::new();
        self.indexes_into(data, range, &mut out);
        // The working buffer had room for every element; keep what was found.
        out.shrink_to_fit();
        out
    }

    /// [`filter_indexes_u64`] with these options.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.indexes_u64(&[1u8, 5, 9], 4..), [1u64, 2]);
    /// ```
    pub fn indexes_u64<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> Vec<u64> {
        let mut out = Vec::new();
        if let Some(q) = self.query(&range) {
            ok(ffi::index64(&q, data, self.threads, &mut out));
            out.shrink_to_fit();
        }
        out
    }

    /// [`filter_indexes_usize`] with these options.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.indexes_usize(&[1u8, 5, 9], 4..), [1usize, 2]);
    /// ```
    pub fn indexes_usize<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(q) = self.query(&range) {
            ok(ffi::index_usize(&q, data, self.threads, &mut out));
            out.shrink_to_fit();
        }
        out
    }

    /// [`filter_indexes_into`] with these options.
    ///
    /// # Panics
    /// If `data` has more than `u32::MAX` elements.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.indexes_into(&[1u8, 5, 9], 4.., &mut out), 2);
    /// assert_eq!(out, [1, 2]);
    /// ```
    pub fn indexes_into<T: Element, R: RangeBounds<T>>(
        &self,
        data: &[T],
        range: R,
        out: &mut Vec<u32>,
    ) -> usize {
        check_index32_len(data.len());
        match self.query(&range) {
            Some(q) => ok(ffi::index32(&q, data, self.threads, out)),
            None => {
                out.clear();
                0
            }
        }
    }

    /// [`filter_values`] with these options.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.values(&[1.5f32, -2.0, 3.0], ..2.0), [1.5, -2.0]);
    /// ```
    pub fn values<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> Vec<T> {
        let mut out = Vec::new();
        if let Some(q) = self.query(&range) {
            ok(ffi::values(&q, data, self.threads, &mut out));
            out.shrink_to_fit();
        }
        out
    }

    /// [`in_range`] with these options.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.in_range(&[1i64, -5, 9], -5..=1), vec![true, true, false]);
    /// ```
    pub fn in_range<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> Vec<bool> {
        let mut bytes = Vec::new();
        match self.query(&range) {
            Some(q) => {
                ok(ffi::mask8(&q, data, self.threads, &mut bytes));
            }
            None => return vec![false; data.len()],
        }
        bytes.into_iter().map(|b| b != 0).collect()
    }

    /// [`count_in_range`] with these options.
    ///
    /// ```
    /// let f = simdfilter::Filter::new().threads(1);
    /// assert_eq!(f.count(&[1i64, -5, 9], -5..=1), 2);
    /// ```
    pub fn count<T: Element, R: RangeBounds<T>>(&self, data: &[T], range: R) -> usize {
        match self.query(&range) {
            Some(q) => ok(ffi::count(&q, data, self.threads)),
            None => 0,
        }
    }
}

/// The result of a call the crate made valid: kernels are always runnable
/// here and nothing cancels, so a failure is a bug in the C library.
fn ok(r: Result<usize, ffi::ExecError>) -> usize {
    match r {
        Ok(n) => n,
        Err(e) => panic!("simdfilter: sf_execute failed with status {}", e.0),
    }
}

/// The most elements a slice may have for `u32` positions: `u32::MAX`, so
/// that every position and the count fit in a `u32`, as in the C and Python
/// APIs. Longer slices need [`filter_indexes_u64`].
///
/// ```
/// let data = vec![0u8; 1000];
/// let positions: Vec<u64> = if data.len() as u64 > simdfilter::MAX_INDEX32_LEN {
///     simdfilter::filter_indexes_u64(&data, 0..1)
/// } else {
///     simdfilter::filter_indexes(&data, 0..1).into_iter().map(u64::from).collect()
/// };
/// assert_eq!(positions.len(), 1000);
/// ```
pub const MAX_INDEX32_LEN: u64 = u32::MAX as u64;

/// Panics unless a slice of `len` elements can have its positions in `u32`.
fn check_index32_len(len: usize) {
    if len as u64 > MAX_INDEX32_LEN {
        panic!(
            "simdfilter: u32 positions are for slices of at most u32::MAX (2^32 - 1) elements, \
             and this one has {}: use filter_indexes_u64 (or Filter::indexes_u64)",
            len
        );
    }
}

/// The positions, in ascending order, of the elements of `data` that lie in
/// `range`.
///
/// # Panics
/// If `data` has more than `u32::MAX` (2^32 - 1) elements, whose positions
/// would not all fit in `u32`: use [`filter_indexes_u64`] for those. The
/// check is on the length alone, before any work, whatever the range.
///
/// ```
/// let years: [u32; 8] = [1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996];
/// assert_eq!(simdfilter::filter_indexes(&years, 1982..=2000), [0, 5, 7]);
/// assert_eq!(simdfilter::filter_indexes(&years, ..1950), [2]);
/// assert!(simdfilter::filter_indexes(&years, 2000..2000).is_empty());
/// ```
pub fn filter_indexes<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> Vec<u32> {
    Filter::new().indexes(data, range)
}

/// The positions, in ascending order, of the elements of `data` that lie in
/// `range`, as `u64`: for slices of any length.
///
/// ```
/// let x = [0.5f32, 1.5, 2.5];
/// assert_eq!(simdfilter::filter_indexes_u64(&x, 1.0..), [1u64, 2]);
/// ```
pub fn filter_indexes_u64<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> Vec<u64> {
    Filter::new().indexes_u64(data, range)
}

/// The positions, in ascending order, of the elements of `data` that lie in
/// `range`, as `usize`: ready to index `data` with, for slices of any length.
/// They take twice the memory of [`filter_indexes`]'s `u32` on 64-bit targets
/// (the C library writes them at that width directly: no conversion pass).
///
/// ```
/// let x = [7i16, -3, 12, 5];
/// let kept = simdfilter::filter_indexes_usize(&x, 0..10);
/// assert_eq!(kept, [0, 3]);
/// assert_eq!(kept.iter().map(|&i| x[i]).collect::<Vec<_>>(), [7, 5]);
/// ```
pub fn filter_indexes_usize<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> Vec<usize> {
    Filter::new().indexes_usize(data, range)
}

/// [`filter_indexes`] into `out`, reusing its memory: `out` is cleared, then
/// holds the positions; returns how many there are (`out.len()`).
///
/// The kernels store whole vectors, so `out` needs a capacity of
/// `data.len()`: it grows to that if it is smaller, and is never reallocated
/// once it is large enough. Reuse one vector across calls to allocate once.
///
/// # Panics
/// If `data` has more than `u32::MAX` elements, as [`filter_indexes`].
///
/// ```
/// let mut out = Vec::with_capacity(1024);
/// let buffer = out.as_ptr();
/// for chunk in vec![5u32; 4096].chunks(1024) {
///     assert_eq!(simdfilter::filter_indexes_into(chunk, 0..=10, &mut out), 1024);
/// }
/// assert_eq!(out.as_ptr(), buffer); // the same memory every time
/// ```
pub fn filter_indexes_into<T: Element, R: RangeBounds<T>>(
    data: &[T],
    range: R,
    out: &mut Vec<u32>,
) -> usize {
    Filter::new().indexes_into(data, range, out)
}

/// The elements of `data` that lie in `range`, in order.
///
/// ```
/// let temps = [-3.5f64, 12.0, 21.5, f64::NAN, 30.0];
/// assert_eq!(simdfilter::filter_values(&temps, 10.0..25.0), [12.0, 21.5]);
/// ```
pub fn filter_values<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> Vec<T> {
    Filter::new().values(data, range)
}

/// Whether each element of `data` lies in `range`: the kernel's byte mask,
/// written in one pass.
///
/// ```
/// let years = [1992u32, 2018, 1934, 2002];
/// assert_eq!(simdfilter::in_range(&years, 1982..=2000), vec![true, false, false, false]);
/// ```
pub fn in_range<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> Vec<bool> {
    Filter::new().in_range(data, range)
}

/// How many elements of `data` lie in `range`; allocates nothing.
///
/// ```
/// let bytes = b"simdfilter";
/// assert_eq!(simdfilter::count_in_range(bytes, b'a'..=b'i'), 5);
/// assert_eq!(simdfilter::count_in_range(bytes, ..), 10);
/// ```
pub fn count_in_range<T: Element, R: RangeBounds<T>>(data: &[T], range: R) -> usize {
    Filter::new().count(data, range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index32_lengths_up_to_u32_max_pass() {
        check_index32_len(0);
        check_index32_len(1);
        check_index32_len(u32::MAX as usize);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    #[should_panic(expected = "at most u32::MAX (2^32 - 1) elements, and this one has 4294967296")]
    fn index32_length_2_pow_32_panics() {
        check_index32_len(1usize << 32);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    #[should_panic(expected = "use filter_indexes_u64")]
    fn index32_huge_length_panics() {
        check_index32_len(usize::MAX);
    }

    #[test]
    fn filter_defaults() {
        assert_eq!(
            Filter::new(),
            Filter {
                threads: 0,
                kernel: None,
                invert: false,
            }
        );
        assert_eq!(Filter::new().threads(3).threads, 3);
    }
}
