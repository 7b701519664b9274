//! Shared by the integration tests: a small PRNG, the element types' special
//! values, and the naive iterator filter every kernel is compared with.

#![allow(dead_code)] // each test file uses its own part of this module

use std::fmt::Debug;
use std::ops::RangeBounds;

use simdfilter::{available_kernels, Element, Filter, Kernel};

/// SplitMix64: tiny, fast and good enough to generate test data.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, n), n > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift: bias far below what these tests could notice.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// What the tests need of an element type beyond simdfilter's trait.
pub trait TestElem: Element + Default {
    const NAME: &'static str;
    /// The type's edge values: MIN, MAX, 0, -1, and for floats NaN (several),
    /// infinities, -0.0, subnormals.
    fn specials() -> Vec<Self>;
    /// Any value of the type, every bit pattern possible.
    fn random(rng: &mut Rng) -> Self;
    /// A value near `x` (a few steps away), for data that straddles bounds.
    fn near(x: Self, rng: &mut Rng) -> Self;
    /// Identity of the bits: tells -0.0 from 0.0 and NaNs apart.
    fn bits(self) -> u64;
}

macro_rules! int_elem {
    ($t:ty, $u:ty) => {
        impl TestElem for $t {
            const NAME: &'static str = stringify!($t);
            fn specials() -> Vec<$t> {
                let mut v = vec![<$t>::MIN, <$t>::MIN + 1, 0, 1, 2, <$t>::MAX - 1, <$t>::MAX];
                v.push((0 as $t).wrapping_sub(1)); // -1, or MAX for unsigned
                v.push(<$t>::MAX / 2);
                v.push((<$t>::MAX / 2).wrapping_add(1));
                v
            }
            fn random(rng: &mut Rng) -> $t {
                rng.next_u64() as $t
            }
            fn near(x: $t, rng: &mut Rng) -> $t {
                x.wrapping_add(rng.below(7) as $t).wrapping_sub(3)
            }
            fn bits(self) -> u64 {
                self as $u as u64
            }
        }
    };
}

int_elem!(u8, u8);
int_elem!(u16, u16);
int_elem!(u32, u32);
int_elem!(u64, u64);
int_elem!(i8, u8);
int_elem!(i16, u16);
int_elem!(i32, u32);
int_elem!(i64, u64);

macro_rules! float_elem {
    ($t:ident, $bits:ty) => {
        impl TestElem for $t {
            const NAME: &'static str = stringify!($t);
            fn specials() -> Vec<$t> {
                vec![
                    $t::NAN,
                    -$t::NAN,
                    $t::from_bits(<$t>::NAN.to_bits() | 1), // a NaN with a payload
                    $t::INFINITY,
                    $t::NEG_INFINITY,
                    $t::MAX,
                    $t::MIN,
                    $t::MIN_POSITIVE,
                    -$t::MIN_POSITIVE,
                    $t::from_bits(1), // the smallest subnormal
                    -$t::from_bits(1),
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    0.5,
                    1.5,
                ]
            }
            fn random(rng: &mut Rng) -> $t {
                match rng.below(4) {
                    // Any bit pattern: NaNs, subnormals, huge values.
                    0 => $t::from_bits(rng.next_u64() as $bits),
                    // Small numbers, where most ranges are.
                    _ => (rng.below(2001) as $t - 1000.0) / 8.0,
                }
            }
            fn near(x: $t, rng: &mut Rng) -> $t {
                // A few ulps away, crossing zero and into NaN space as it may.
                let step = rng.below(5) as $bits;
                match rng.below(2) {
                    0 => $t::from_bits(x.to_bits().wrapping_add(step)),
                    _ => $t::from_bits(x.to_bits().wrapping_sub(step)),
                }
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
        }
    };
}

float_elem!(f32, u32);
float_elem!(f64, u64);

/// The naive filter: what every result is compared with. NaN never matches:
/// `RangeBounds::contains` alone would keep it for `..` (no compare is made).
#[allow(clippy::eq_op)] // x == x is false for NaN only, for every element type
pub fn naive_indexes<T: Element, R: RangeBounds<T>>(data: &[T], range: &R) -> Vec<u32> {
    data.iter()
        .enumerate()
        .filter(|(_, x)| range.contains(*x) && *x == *x)
        .map(|(i, _)| i as u32)
        .collect()
}

/// Data of length `n` for the test of ranges around `anchors`: a mix of
/// random values, the type's specials and values near the anchors.
pub fn mixed_data<T: TestElem>(rng: &mut Rng, n: usize, anchors: &[T]) -> Vec<T> {
    let specials = T::specials();
    (0..n)
        .map(|_| match rng.below(8) {
            0 | 1 => T::random(rng),
            2 => rng.pick(&specials),
            _ if anchors.is_empty() => T::random(rng),
            _ => T::near(rng.pick(anchors), rng),
        })
        .collect()
}

/// Checks every operation, with every kernel this machine runs (pinned per
/// call, so that tests can run on parallel threads), against the naive filter.
pub struct Checker {
    pub kernels: Vec<Kernel>,
    pub threads: usize,
    /// Reused by indexes_into across calls, as a user would.
    scratch: std::cell::RefCell<Vec<u32>>,
}

impl Checker {
    pub fn new() -> Checker {
        Checker::with_threads(0)
    }
    pub fn with_threads(threads: usize) -> Checker {
        Checker {
            kernels: available_kernels(),
            threads,
            scratch: std::cell::RefCell::new(Vec::new()),
        }
    }

    pub fn check<T, R>(&self, data: &[T], range: R)
    where
        T: TestElem,
        R: RangeBounds<T> + Clone + Debug,
    {
        let expect = naive_indexes(data, &range);
        let expect_values: Vec<u64> = expect.iter().map(|&i| data[i as usize].bits()).collect();
        let expect_u64: Vec<u64> = expect.iter().map(|&i| u64::from(i)).collect();
        for &k in &self.kernels {
            let f = Filter::new().kernel(k).threads(self.threads);
            let what = || {
                format!(
                    "{} kernel, {} data of length {}, range {:?}, threads {}",
                    k,
                    T::NAME,
                    data.len(),
                    range,
                    self.threads
                )
            };
            let got = f.indexes(data, range.clone());
            if got != expect {
                panic!(
                    "indexes differ: {}\n   got {:?}\nexpect {:?}\n  data {:?}",
                    what(),
                    got,
                    expect,
                    data
                );
            }
            assert_eq!(
                f.indexes_u64(data, range.clone()),
                expect_u64,
                "indexes_u64: {}",
                what()
            );
            let values: Vec<u64> = f
                .values(data, range.clone())
                .iter()
                .map(|x| x.bits())
                .collect();
            assert_eq!(values, expect_values, "values: {}", what());
            assert_eq!(
                f.count(data, range.clone()),
                expect.len(),
                "count: {}",
                what()
            );
            let mut expect_mask = vec![false; data.len()];
            for &i in &expect {
                expect_mask[i as usize] = true;
            }
            assert_eq!(
                f.in_range(data, range.clone()),
                expect_mask,
                "in_range: {}",
                what()
            );
            let mut scratch = self.scratch.borrow_mut();
            scratch.push(12345); // stale contents must go
            assert_eq!(
                f.indexes_into(data, range.clone(), &mut scratch),
                expect.len(),
                "{}",
                what()
            );
            assert_eq!(*scratch, expect, "indexes_into: {}", what());
        }
    }
}

/// Calls `$c.check($data, range)` for every form of range over `$a` and `$b`:
/// `a..=b`, `a..b`, `a..`, `..b`, `..=b`, `..` and the bound pairs that only
/// `(Bound, Bound)` can spell (excluded starts).
#[macro_export]
macro_rules! each_form {
    ($c:expr, $data:expr, $a:expr, $b:expr) => {{
        use std::ops::Bound::{Excluded, Included, Unbounded};
        let (c, data, a, b) = (&$c, $data, $a, $b);
        c.check(data, a..=b);
        c.check(data, a..b);
        c.check(data, a..);
        c.check(data, ..b);
        c.check(data, ..=b);
        c.check(data, ..);
        c.check(data, (Excluded(a), Included(b)));
        c.check(data, (Excluded(a), Excluded(b)));
        c.check(data, (Excluded(a), Unbounded));
    }};
}

/// `c.check(data, range)` for the range form numbered `form` (0..9) over `a`
/// and `b`, in each_form!'s order.
pub fn check_form<T: TestElem>(c: &Checker, data: &[T], a: T, b: T, form: u64) {
    use std::ops::Bound::{Excluded, Included, Unbounded};
    match form % 9 {
        0 => c.check(data, a..=b),
        1 => c.check(data, a..b),
        2 => c.check(data, a..),
        3 => c.check(data, ..b),
        4 => c.check(data, ..=b),
        5 => c.check(data, ..),
        6 => c.check(data, (Excluded(a), Included(b))),
        7 => c.check(data, (Excluded(a), Excluded(b))),
        _ => c.check(data, (Excluded(a), Unbounded)),
    }
}

/// Two bounds for a test: from the specials or random, usually in order
/// (a <= b), sometimes reversed (an empty range) or equal.
pub fn bounds<T: TestElem>(rng: &mut Rng) -> (T, T) {
    let specials = T::specials();
    let one = |rng: &mut Rng| {
        if rng.below(3) == 0 {
            rng.pick(&specials)
        } else {
            T::random(rng)
        }
    };
    let a = one(rng);
    let b = match rng.below(8) {
        0 => a,
        1 => T::near(a, rng),
        _ => one(rng),
    };
    if rng.below(6) != 0 && b < a {
        (b, a)
    } else {
        (a, b)
    }
}
