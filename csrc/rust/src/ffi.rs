//! The C library's API (`csrc/include/simdfilter.h`) and safe wrappers over
//! it. Every `unsafe` of the crate is in this module, each with the reason it
//! is sound next to it; the rest of the crate is `#![deny(unsafe_code)]`
//! apart from this module.
//!
//! The header's constants and plain-data structs are restated in `sys`; the
//! structs that carry C callbacks are declared here, next to the calls. The
//! `layout` test checks all of them against the sizes and offsets the C
//! compiler reports (layout.c).

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{CStr, CString};
use std::mem::size_of;
use std::os::raw::{c_char, c_int, c_void};

use crate::sys::*;

// ---- Declarations with callbacks (restating simdfilter.h) -------------------

#[repr(C)]
struct SfSource {
    next: Option<unsafe extern "C" fn(*mut SfSource, *mut SfRun) -> c_int>,
}

#[repr(C)]
struct SfRunSource {
    source: SfSource,
    run: SfRun,
    taken: c_int,
}

#[repr(C)]
struct SfExec {
    threads: c_int,
    cancel: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    cancel_ctx: *mut c_void,
    fresh_out: c_int,
    out_resident: usize,
}

extern "C" {
    fn sf_resolve_range(
        t: c_int,
        lo: *const SfBound,
        lo_closed: c_int,
        hi: *const SfBound,
        hi_closed: c_int,
        out: *mut SfRange,
    ) -> c_int;

    fn sf_invert_range(e: c_int, verdict: c_int, r: *mut SfRange) -> c_int;
    fn sf_merge_ranges(t: c_int, r: *mut SfRange, k: usize) -> usize;

    fn sf_kernel_count() -> c_int;
    fn sf_kernel_at(i: c_int) -> *const SfKernel;
    fn sf_kernel_supported(k: *const SfKernel) -> c_int;
    fn sf_active_kernel() -> *const SfKernel;
    fn sf_kernel_arch(name: *const c_char) -> *const c_char;
    fn sf_kernel_select(name: *const c_char, out: *mut *const SfKernel) -> c_int;
    fn sf_use_kernel(name: *const c_char) -> c_int;
    fn sf_cpu_features(buf: *mut c_char, size: usize) -> usize;
    fn sf_kernel_choice(
        arch: *const c_char,
        features: *const c_char,
        requested: *const c_char,
        name: *mut *const c_char,
    ) -> c_int;
    fn sf_kernel_env_status(value: *mut *const c_char) -> c_int;

    fn sf_run_source_init(s: *mut SfRunSource, run: *const SfRun) -> *mut SfSource;
    fn sf_execute(
        q: *const SfQuery,
        src: *mut SfSource,
        out: *mut c_void,
        capacity: usize,
        opts: *const SfExec,
        found: *mut usize,
    ) -> c_int;

    // layout.c
    #[cfg(test)]
    fn sf_rust_layout(len: *mut usize) -> *const usize;
}

// ---- Element types ---------------------------------------------------------

/// Plain numbers: every bit pattern of their size is a valid value, so memory
/// the C library filled with results of their size may be read as them.
///
/// # Safety
/// Implement only for types with no padding, no invalid bit patterns and no
/// drop glue.
pub unsafe trait Plain: Copy + 'static {}

// SAFETY: fixed-size integers and IEEE floats: every bit pattern is a value,
// no padding, no Drop.
unsafe impl Plain for u8 {}
// SAFETY: as for u8.
unsafe impl Plain for u16 {}
// SAFETY: as for u8.
unsafe impl Plain for u32 {}
// SAFETY: as for u8.
unsafe impl Plain for u64 {}
// SAFETY: as for u8.
unsafe impl Plain for i8 {}
// SAFETY: as for u8.
unsafe impl Plain for i16 {}
// SAFETY: as for u8.
unsafe impl Plain for i32 {}
// SAFETY: as for u8.
unsafe impl Plain for i64 {}
// SAFETY: as for u8.
unsafe impl Plain for f32 {}
// SAFETY: as for u8.
unsafe impl Plain for f64 {}
// SAFETY: as for u8 (an integer of the pointer's width); only ever an output.
unsafe impl Plain for usize {}

// ---- Bounds ----------------------------------------------------------------

/// `sf_resolve_range`: `Some(range)`, or `None` when no value of the type can
/// be in range.
///
/// # Panics
/// On a result the crate never asks for (a bad type or bound kind, or an
/// integer bound on float data).
pub fn resolve_range(
    ty: c_int,
    lo: &SfBound,
    lo_closed: bool,
    hi: &SfBound,
    hi_closed: bool,
) -> Option<SfRange> {
    let mut out = SfRange::default();
    // SAFETY: `lo`, `hi` and `out` are valid for the duration of the call;
    // the function reads the bounds and writes only *out.
    let rc =
        unsafe { sf_resolve_range(ty, lo, lo_closed as c_int, hi, hi_closed as c_int, &mut out) };
    match rc {
        SF_RANGE_OK => Some(out),
        SF_RANGE_EMPTY => None,
        other => panic!(
            "simdfilter: sf_resolve_range(type {}, {:?}, {:?}) returned {}",
            ty, lo, hi, other
        ),
    }
}

/// `sf_invert_range`: the range of the values of kind `elem` outside
/// `range` (`None`: empty), or `None` when nothing is outside it.
///
/// # Panics
/// On a result the crate never asks for (a bad element kind).
pub fn invert_range(elem: c_int, range: Option<SfRange>) -> Option<SfRange> {
    let verdict = if range.is_some() {
        SF_RANGE_OK
    } else {
        SF_RANGE_EMPTY
    };
    let mut out = range.unwrap_or_default();
    // SAFETY: `out` is valid for the duration of the call; the function
    // reads and writes only *out.
    let rc = unsafe { sf_invert_range(elem, verdict, &mut out) };
    match rc {
        SF_RANGE_OK => Some(out),
        SF_RANGE_EMPTY => None,
        other => panic!(
            "simdfilter: sf_invert_range(elem {}) returned {}",
            elem, other
        ),
    }
}

// ---- Dispatch ---------------------------------------------------------------

/// A kernel table compiled into the library: a `'static` C struct.
#[derive(Clone, Copy)]
pub struct KernelRef(&'static SfKernel);

// SAFETY: the kernel tables are immutable statics of the C library (a name
// and function pointers); sharing or sending a reference to one is as safe as
// sharing a `&'static str`.
unsafe impl Send for KernelRef {}
// SAFETY: as for Send.
unsafe impl Sync for KernelRef {}

impl KernelRef {
    fn from_ptr(p: *const SfKernel) -> Option<KernelRef> {
        // SAFETY: every non-null kernel pointer the library hands out points
        // to one of its static tables, which live as long as the program.
        unsafe { p.as_ref() }.map(KernelRef)
    }

    /// The kernel's name ("scalar", "avx2", ...).
    pub fn name(self) -> &'static str {
        // SAFETY: `name` is a NUL-terminated string literal in the static
        // table; its lifetime is the program's.
        let name = unsafe { CStr::from_ptr(self.0.name) };
        name.to_str().expect("kernel names are ASCII")
    }

    /// Whether this CPU and OS can run it.
    pub fn supported(self) -> bool {
        // SAFETY: the pointer is one of the library's kernel tables.
        unsafe { sf_kernel_supported(self.0) != 0 }
    }

    fn as_ptr(self) -> *const SfKernel {
        self.0
    }
}

impl PartialEq for KernelRef {
    fn eq(&self, other: &KernelRef) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for KernelRef {}

/// The kernels compiled into this build, slowest first.
pub fn compiled_kernels() -> Vec<KernelRef> {
    // SAFETY: no arguments; returns a count.
    let n = unsafe { sf_kernel_count() };
    (0..n)
        // SAFETY: any index is accepted (NULL out of range).
        .filter_map(|i| KernelRef::from_ptr(unsafe { sf_kernel_at(i) }))
        .collect()
}

/// The process default kernel.
pub fn active_kernel() -> KernelRef {
    // SAFETY: no arguments; never NULL (falls back to scalar).
    KernelRef::from_ptr(unsafe { sf_active_kernel() }).expect("sf_active_kernel returned NULL")
}

/// The runnable kernel called `name`, or an SF_E* code. A name with a NUL in
/// it is no kernel's.
pub fn kernel_select(name: &str) -> Result<KernelRef, c_int> {
    let cname = CString::new(name).map_err(|_| SF_EUNKNOWN)?;
    let mut out: *const SfKernel = std::ptr::null();
    // SAFETY: `cname` is NUL-terminated and outlives the call; `out` is a
    // valid place for one pointer.
    let rc = unsafe { sf_kernel_select(cname.as_ptr(), &mut out) };
    if rc != SF_OK {
        return Err(rc);
    }
    KernelRef::from_ptr(out).ok_or(SF_EUNKNOWN)
}

/// Make `name` the process default: SF_OK or an SF_E* code.
pub fn use_kernel(name: &str) -> c_int {
    match CString::new(name) {
        // SAFETY: NUL-terminated and alive for the call; the library copies
        // nothing from it but compares it with its kernel names.
        Ok(cname) => unsafe { sf_use_kernel(cname.as_ptr()) },
        Err(_) => SF_EUNKNOWN,
    }
}

/// The architecture of a kernel the project knows ("x86_64", "aarch64",
/// "any"), built here or not; `None` for an unknown name.
pub fn kernel_arch(name: &str) -> Option<&'static str> {
    let cname = CString::new(name).ok()?;
    // SAFETY: `cname` is NUL-terminated and alive for the call.
    let p = unsafe { sf_kernel_arch(cname.as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null results are string literals of the library.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// A string the library returned: NULL or a NUL-terminated string it never
/// frees (a literal, or a buffer written once before it is handed out).
fn library_str(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: see above: non-null, NUL-terminated, alive for the process.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// Dispatch's rule for a described CPU (`arch`, `features` as
/// sf_cpu_features prints them) and an optional requested name: the kernel's
/// name or an SF_E* code. A string with a NUL in it is refused as SF_EINVAL
/// (description) or SF_EUNKNOWN (name).
pub fn kernel_choice(
    arch: &str,
    features: &str,
    requested: Option<&str>,
) -> Result<&'static str, c_int> {
    let arch = CString::new(arch).map_err(|_| SF_EINVAL)?;
    let features = CString::new(features).map_err(|_| SF_EINVAL)?;
    let requested = match requested {
        Some(r) => Some(CString::new(r).map_err(|_| SF_EUNKNOWN)?),
        None => None,
    };
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: every string is NUL-terminated and outlives the call (NULL for
    // no request); `name` is a valid place for one pointer.
    let rc = unsafe {
        sf_kernel_choice(
            arch.as_ptr(),
            features.as_ptr(),
            requested.as_ref().map_or(std::ptr::null(), |r| r.as_ptr()),
            &mut name,
        )
    };
    if rc != SF_OK {
        return Err(rc);
    }
    library_str(name).ok_or(SF_EUNKNOWN)
}

/// What SIMDFILTER_KERNEL, as the library read it, did: None if it was unset,
/// blank or usable; else its value and the SF_E* code.
pub fn kernel_env_status() -> Option<(String, c_int)> {
    let mut value: *const c_char = std::ptr::null();
    // SAFETY: `value` is a valid place for one pointer; the library stores a
    // pointer to its own buffer, written once before it is handed out.
    let rc = unsafe { sf_kernel_env_status(&mut value) };
    if rc == SF_OK {
        return None;
    }
    Some((library_str(value).unwrap_or("").to_string(), rc))
}

/// The CPU features dispatch looked at, space-separated.
pub fn cpu_features() -> String {
    let mut buf: Vec<u8> = vec![0; 256];
    loop {
        // SAFETY: `buf` has room for buf.len() bytes; the function writes at
        // most that many, NUL included, and returns the full length.
        let len = unsafe { sf_cpu_features(buf.as_mut_ptr() as *mut c_char, buf.len()) };
        if len < buf.len() {
            buf.truncate(len);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        buf.resize(len + 1, 0);
    }
}

/// `sf_merge_ranges`: `ranges` (each as `resolve_range` gave it) sorted in
/// the order of type `ty` and joined where they overlap or touch.
pub fn merge_ranges(ty: c_int, ranges: &mut Vec<SfRange>) {
    // SAFETY: the pointer and length describe `ranges`' initialised elements;
    // the function rewrites a prefix of them and returns its length, at most
    // the length given.
    let kept = unsafe { sf_merge_ranges(ty, ranges.as_mut_ptr(), ranges.len()) };
    assert!(kept <= ranges.len(), "sf_merge_ranges returned {}", kept);
    ranges.truncate(kept);
}

// ---- Execution --------------------------------------------------------------

/// What to compute, without the operation: kernel (None for the process
/// default), element kind and a non-empty range; `more` further ranges,
/// kept when in any (`every` false) or in each of them.
#[derive(Clone)]
pub struct Query {
    pub kernel: Option<KernelRef>,
    pub elem: c_int,
    pub range: SfRange,
    pub more: Vec<SfRange>,
    pub every: bool,
}

/// An `sf_execute` failure: the status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecError(pub c_int);

/// Runs `op` over all of `data` and returns `found`. `out` is null for count,
/// otherwise room for `data.len()` results; `fresh_out` says that memory was
/// just allocated (never written: fewer automatic threads, see `sf_exec`).
///
/// Not public: its callers below pair each op with its result type.
fn execute<T: Plain>(
    q: &Query,
    op: c_int,
    data: &[T],
    threads: usize,
    out: *mut c_void,
    fresh_out: bool,
) -> Result<usize, ExecError> {
    assert_eq!(
        elem_size(q.elem),
        size_of::<T>(),
        "element kind and type disagree"
    );
    let query = SfQuery {
        kernel: q.kernel.map_or(std::ptr::null(), KernelRef::as_ptr),
        op,
        elem: q.elem,
        range: q.range,
        within: std::ptr::null(),
        within_count: 0,
        within_wide: 0,
        more: if q.more.is_empty() {
            std::ptr::null()
        } else {
            q.more.as_ptr()
        },
        more_count: q.more.len(),
        every: c_int::from(q.every),
    };
    let run = SfRun::new(
        data.as_ptr() as *const c_void,
        data.len(),
        size_of::<T>() as isize,
    );
    let mut source = SfRunSource {
        source: SfSource { next: None },
        run: SfRun::new(std::ptr::null(), 0, 0),
        taken: 0,
    };
    let opts = SfExec {
        threads: threads.min(SF_MAX_THREADS) as c_int,
        cancel: None,
        cancel_ctx: std::ptr::null_mut(),
        fresh_out: c_int::from(fresh_out),
        out_resident: 0,
    };
    let capacity = if out.is_null() { 0 } else { data.len() };
    let mut found: usize = 0;
    // SAFETY: `source` is a place for an sf_run_source, which the call fills
    // in; it copies `run` (so `run` need not outlive it) and returns a
    // pointer into `source`, which lives until the end of this function.
    let src = unsafe { sf_run_source_init(&mut source, &run) };
    // SAFETY:
    // - `src` is the source just initialised; it yields the one run, which
    //   describes `data` exactly (pointer, length, its element size as
    //   stride, native byte order). `data` is borrowed, so it stays valid and
    //   unmodified for the whole call, including on the library's worker
    //   threads, which sf_execute joins before it returns.
    // - `out` is null with capacity 0 (count), or the caller guarantees room
    //   for `data.len()` results of the op's size, properly aligned; the
    //   library writes nothing past `capacity` results.
    // - `query.more` is null with count 0, or points to the `q.more.len()`
    //   ranges of `q.more`, which `q` borrows for the whole call.
    // - `query`, `opts` and `found` are valid for the call; the query's
    //   kernel is null or one of the library's tables.
    let rc = unsafe { sf_execute(&query, src, out, capacity, &opts, &mut found) };
    if rc != SF_OK {
        return Err(ExecError(rc));
    }
    if !out.is_null() {
        // The set_len below relies on it: the library promises found <= n.
        assert!(
            found <= data.len(),
            "sf_execute reported {} results for {} elements",
            found,
            data.len()
        );
    }
    Ok(found)
}

/// Runs `op`, whose results are of type `R`, writing them into `out`'s memory
/// from its start, and sets `out`'s length to the number found. `out` is
/// cleared first; it grows to `data.len()` capacity only if it is smaller.
fn execute_into<T: Plain, R: Plain>(
    q: &Query,
    op: c_int,
    data: &[T],
    threads: usize,
    out: &mut Vec<R>,
) -> Result<usize, ExecError> {
    out.clear();
    if data.is_empty() {
        return Ok(0);
    }
    // Kernels store whole vectors anywhere in out[0, n): room for all n. A
    // buffer that has to grow for it is new memory, not yet written.
    let fresh_out = out.capacity() < data.len();
    out.reserve(data.len());
    // Never a &mut [R] over this memory: it is uninitialised until the C
    // library writes it. A raw pointer into the spare capacity it is.
    let dst = out.spare_capacity_mut().as_mut_ptr() as *mut c_void;
    let found = execute(q, op, data, threads, dst, fresh_out)?;
    // SAFETY: `out` has capacity >= data.len() >= found (checked in execute);
    // sf_execute returned SF_OK, so the first `found` results are written,
    // each a valid R (Plain: any bit pattern is a value).
    unsafe { out.set_len(found) };
    Ok(found)
}

/// Positions of the matching elements, as u32. The caller has checked that
/// `data.len() <= u32::MAX`.
pub fn index32<T: Plain>(
    q: &Query,
    data: &[T],
    threads: usize,
    out: &mut Vec<u32>,
) -> Result<usize, ExecError> {
    assert!(
        data.len() as u64 <= u64::from(u32::MAX),
        "positions past u32::MAX"
    );
    execute_into(q, SF_OP_INDEX32, data, threads, out)
}

/// Positions of the matching elements, as u64.
pub fn index64<T: Plain>(
    q: &Query,
    data: &[T],
    threads: usize,
    out: &mut Vec<u64>,
) -> Result<usize, ExecError> {
    execute_into(q, SF_OP_INDEX64, data, threads, out)
}

/// Positions of the matching elements, as usize: the op of usize's width,
/// u64 on 64-bit targets and u32 on 32-bit ones (where every position of a
/// slice fits in u32), written straight into `out`.
pub fn index_usize<T: Plain>(
    q: &Query,
    data: &[T],
    threads: usize,
    out: &mut Vec<usize>,
) -> Result<usize, ExecError> {
    let op = match size_of::<usize>() {
        8 => SF_OP_INDEX64,
        4 => SF_OP_INDEX32,
        n => panic!("simdfilter: no positions op for a {}-byte usize", n),
    };
    execute_into(q, op, data, threads, out)
}

/// The matching elements themselves.
pub fn values<T: Plain>(
    q: &Query,
    data: &[T],
    threads: usize,
    out: &mut Vec<T>,
) -> Result<usize, ExecError> {
    execute_into(q, SF_OP_VALUES, data, threads, out)
}

/// A byte per element, 1 where it matches, 0 elsewhere (SF_OP_MASK8); the
/// number of matches.
pub fn mask8<T: Plain>(
    q: &Query,
    data: &[T],
    threads: usize,
    out: &mut Vec<u8>,
) -> Result<usize, ExecError> {
    out.clear();
    if data.is_empty() {
        return Ok(0);
    }
    let fresh_out = out.capacity() < data.len();
    out.reserve(data.len());
    let dst = out.spare_capacity_mut().as_mut_ptr() as *mut c_void;
    let found = execute(q, SF_OP_MASK8, data, threads, dst, fresh_out)?;
    // SAFETY: `out` has capacity >= data.len(); sf_execute returned SF_OK, so
    // a mask wrote exactly data.len() bytes, each 0 or 1.
    unsafe { out.set_len(data.len()) };
    Ok(found)
}

/// How many elements match.
pub fn count<T: Plain>(q: &Query, data: &[T], threads: usize) -> Result<usize, ExecError> {
    if data.is_empty() {
        return Ok(0);
    }
    execute(q, SF_OP_COUNT, data, threads, std::ptr::null_mut(), false)
}

// ---- Layout check -------------------------------------------------------------

/// The sizes and offsets layout.c computed with the C compiler.
#[cfg(test)]
fn layout_from_c() -> Vec<usize> {
    let mut len = 0;
    // SAFETY: writes the array's length into `len` and returns it, a static
    // array of that many size_t in layout.c.
    let p = unsafe { sf_rust_layout(&mut len) };
    // SAFETY: `p` points to `len` initialised, immutable size_t.
    unsafe { std::slice::from_raw_parts(p, len) }.to_vec()
}

/// The same facts about this module's declarations, in layout.c's order.
#[cfg(test)]
fn layout_from_rust() -> Vec<usize> {
    fn off<S, F>(s: &S, f: &F) -> usize {
        f as *const F as usize - s as *const S as usize
    }
    let r = SfRange::default();
    let b = SfBound::none();
    let q = SfQuery {
        kernel: std::ptr::null(),
        op: 0,
        elem: 0,
        range: r,
        within: std::ptr::null(),
        within_count: 0,
        within_wide: 0,
        more: std::ptr::null(),
        more_count: 0,
        every: 0,
    };
    let run = SfRun::new(std::ptr::null(), 0, 0);
    let rs = SfRunSource {
        source: SfSource { next: None },
        run: SfRun::new(std::ptr::null(), 0, 0),
        taken: 0,
    };
    let e = SfExec {
        threads: 0,
        cancel: None,
        cancel_ctx: std::ptr::null_mut(),
        fresh_out: 0,
        out_resident: 0,
    };
    let mut v = vec![
        size_of::<SfRange>(),
        off(&r, &r.lo),
        off(&r, &r.hi),
        off(&r, &r.flo),
        off(&r, &r.fhi),
        off(&r, &r.invert),
        size_of::<SfBound>(),
        off(&b, &b.kind),
        off(&b, &b.i),
        off(&b, &b.u),
        off(&b, &b.f),
        size_of::<SfQuery>(),
        off(&q, &q.kernel),
        off(&q, &q.op),
        off(&q, &q.elem),
        off(&q, &q.range),
        off(&q, &q.within),
        off(&q, &q.within_count),
        off(&q, &q.within_wide),
        off(&q, &q.more),
        off(&q, &q.more_count),
        off(&q, &q.every),
        size_of::<SfRun>(),
        off(&run, &run.data),
        off(&run, &run.n),
        off(&run, &run.stride),
        off(&run, &run.byteswap),
        off(&run, &run.base),
        off(&run, &run.null_form),
        off(&run, &run.nulls),
        off(&run, &run.null_bit),
        off(&run, &run.null_stride),
        off(&run, &run.bit_packed),
        off(&run, &run.data_bit),
        size_of::<SfSource>(),
        size_of::<SfRunSource>(),
        off(&rs, &rs.source),
        off(&rs, &rs.run),
        off(&rs, &rs.taken),
        size_of::<SfExec>(),
        off(&e, &e.threads),
        off(&e, &e.cancel),
        off(&e, &e.cancel_ctx),
        off(&e, &e.fresh_out),
        off(&e, &e.out_resident),
    ];
    // sf_kernel: Rust declares the name only, so what is checked is where
    // the name is, and that the C struct is a whole number of pointers.
    let c_kernel_size = layout_from_c()[v.len()];
    assert_eq!(c_kernel_size % size_of::<*const c_void>(), 0);
    assert!(c_kernel_size > size_of::<SfKernel>());
    v.extend([
        c_kernel_size,
        0,
        size_of::<c_int>(),
        size_of::<c_int>(),
        size_of::<c_int>(),
        size_of::<c_int>(),
        size_of::<c_int>(),
        SF_ELEM_COUNT as usize,
        SF_TYPE_COUNT as usize,
        SF_MAX_THREADS,
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_header() {
        assert_eq!(layout_from_rust(), layout_from_c());
    }
}
