//! Every range form at each type's edges (MIN, MAX, 0, -1, NaN, the
//! infinities, -0.0, subnormals), against the naive filter and against
//! results written out by hand.

// Reversed ranges are empty ranges, and those are under test here.
#![allow(clippy::reversed_empty_ranges)]

mod common;

use std::ops::Bound::{Excluded, Included, Unbounded};

use common::{Checker, Rng, TestElem};
use simdfilter::{count_in_range, filter_indexes, filter_values, Filter};

/// Data: every special twice (in two places, so order shows), plus random
/// values; bounds: every pair of specials, every form.
fn edges<T: TestElem>(seed: u64) {
    let c = Checker::new();
    let mut rng = Rng::new(seed);
    let specials = T::specials();
    let mut data = specials.clone();
    data.extend((0..40).map(|_| T::random(&mut rng)));
    data.extend(specials.iter().rev());
    for &a in &specials {
        for &b in &specials {
            each_form!(c, &data, a, b);
        }
    }
}

macro_rules! edge_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() { edges::<$t>(stringify!($name).len() as u64) }
    )*};
}

edge_tests!(edges_u8: u8, edges_u16: u16, edges_u32: u32, edges_u64: u64, edges_i8: i8,
            edges_i16: i16, edges_i32: i32, edges_i64: i64, edges_f32: f32, edges_f64: f64);

/// Every u8 and i8 value, with every range whose bounds are multiples of 15
/// (or the ends), every form: the 8-bit domains exhaustively.
#[test]
fn all_8_bit_values() {
    let c = Checker::new();
    let all_u8: Vec<u8> = (0..=255).collect();
    let all_i8: Vec<i8> = (-128..=127).collect();
    let ends_u8: Vec<u8> = (0..=255).step_by(15).chain([1, 254, 255]).collect();
    for &a in &ends_u8 {
        for &b in &ends_u8 {
            each_form!(c, &all_u8, a, b);
            each_form!(c, &all_i8, a as i8, b as i8);
        }
    }
}

#[test]
fn integer_edges_by_hand() {
    let x = [i32::MIN, -1, 0, 1, i32::MAX];
    assert_eq!(filter_indexes(&x, i32::MIN..=i32::MAX), [0, 1, 2, 3, 4]);
    assert_eq!(filter_indexes(&x, ..), [0, 1, 2, 3, 4]);
    assert_eq!(filter_indexes(&x, i32::MIN..i32::MAX), [0, 1, 2, 3]);
    assert_eq!(filter_indexes(&x, ..0), [0, 1]);
    assert_eq!(filter_indexes(&x, -1..=-1), [1]);
    assert_eq!(
        filter_indexes(&x, (Excluded(i32::MAX), Unbounded)),
        [0u32; 0]
    );
    assert_eq!(filter_indexes(&x, ..i32::MIN), [0u32; 0]);
    assert_eq!(filter_indexes(&x, 5..5), [0u32; 0]);
    assert_eq!(filter_indexes(&x, 1..=-1), [0u32; 0]);

    let u = [
        0u64,
        1,
        i64::MAX as u64,
        i64::MAX as u64 + 1,
        u64::MAX - 1,
        u64::MAX,
    ];
    assert_eq!(filter_indexes(&u, (i64::MAX as u64)..), [2, 3, 4, 5]);
    assert_eq!(filter_indexes(&u, (i64::MAX as u64 + 1)..u64::MAX), [3, 4]);
    assert_eq!(filter_indexes(&u, u64::MAX..=u64::MAX), [5]);
    assert_eq!(filter_indexes(&u, ..=0), [0]);
    assert_eq!(
        filter_values(&u, 1..=(i64::MAX as u64 + 1)),
        [1, i64::MAX as u64, 1 << 63]
    );

    let s = [i64::MIN, i64::MIN + 1, -1, 0, i64::MAX];
    assert_eq!(filter_indexes(&s, ..=i64::MIN), [0]);
    assert_eq!(
        filter_indexes(&s, (Excluded(i64::MIN), Excluded(0))),
        [1, 2]
    );
    assert_eq!(count_in_range(&s, i64::MIN..), 5);

    let b = [0u8, 127, 128, 255];
    assert_eq!(filter_indexes(&b, 128..), [2, 3]);
    assert_eq!(
        filter_indexes(&[-128i8, -1, 0, 127], (Excluded(-128), Included(0))),
        [1, 2]
    );
    assert_eq!(filter_indexes(&[u16::MAX, 0, 1], 1..), [0, 2]);
    assert_eq!(filter_indexes(&[i16::MIN, 0, i16::MAX], ..=0), [0, 1]);
}

#[test]
fn float_edges_by_hand() {
    let tiny = f64::from_bits(1); // the smallest subnormal
    let x = [
        f64::NEG_INFINITY, // 0
        -1.0,              // 1
        -0.0,              // 2
        0.0,               // 3
        tiny,              // 4
        1.0,               // 5
        f64::INFINITY,     // 6
        f64::NAN,          // 7
        -f64::NAN,         // 8
    ];
    // NaN never matches, not even the full range.
    assert_eq!(filter_indexes(&x, ..), [0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(
        filter_indexes(&x, f64::NEG_INFINITY..=f64::INFINITY),
        [0, 1, 2, 3, 4, 5, 6]
    );
    // A NaN bound gives nothing, whatever the other end.
    assert_eq!(filter_indexes(&x, f64::NAN..), [0u32; 0]);
    assert_eq!(filter_indexes(&x, ..f64::NAN), [0u32; 0]);
    assert_eq!(filter_indexes(&x, -1.0..=f64::NAN), [0u32; 0]);
    assert_eq!(
        filter_indexes(&x, (Unbounded, Included(f64::NAN))),
        [0u32; 0]
    );
    // -0.0 == 0.0, from either side and as either bound.
    assert_eq!(filter_indexes(&x, 0.0..=0.0), [2, 3]);
    assert_eq!(filter_indexes(&x, -0.0..=-0.0), [2, 3]);
    assert_eq!(filter_indexes(&x, ..0.0), [0, 1]);
    assert_eq!(filter_indexes(&x, ..-0.0), [0, 1]);
    assert_eq!(filter_indexes(&x, (Excluded(-0.0), Unbounded)), [4, 5, 6]);
    assert_eq!(filter_indexes(&x, (Excluded(0.0), Included(tiny))), [4]);
    assert_eq!(filter_indexes(&x, 0.0..tiny), [2, 3]);
    // The infinities are values at the ends.
    assert_eq!(filter_indexes(&x, f64::INFINITY..), [6]);
    assert_eq!(filter_indexes(&x, ..=f64::NEG_INFINITY), [0]);
    assert_eq!(filter_indexes(&x, ..f64::INFINITY), [0, 1, 2, 3, 4, 5]);
    assert_eq!(
        filter_indexes(&x, (Excluded(f64::NEG_INFINITY), Unbounded)),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        filter_indexes(&x, (Excluded(f64::INFINITY), Unbounded)),
        [0u32; 0]
    );
    assert_eq!(filter_indexes(&x, ..f64::NEG_INFINITY), [0u32; 0]);
    // Empty forms.
    assert_eq!(filter_indexes(&x, 1.0..1.0), [0u32; 0]);
    assert_eq!(filter_indexes(&x, 1.0..=-1.0), [0u32; 0]);
    // Values come back bit for bit: -0.0 stays -0.0.
    let v = filter_values(&x, -0.0..=0.0);
    assert_eq!(
        v.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
        [(-0.0f64).to_bits(), 0]
    );

    // f32: open bounds move to the next f32, not the next f64.
    let t32 = f32::from_bits(1);
    let y = [
        -0.0f32,
        0.0,
        t32,
        f32::from_bits(2),
        1.0,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
    ];
    assert_eq!(filter_indexes(&y, (Excluded(0.0f32), Included(t32))), [2]);
    assert_eq!(filter_indexes(&y, (Excluded(t32), Excluded(1.0))), [3]);
    assert_eq!(filter_indexes(&y, (Excluded(f32::MAX), Unbounded)), [6]);
    assert_eq!(filter_indexes(&y, ..f32::MAX), [0, 1, 2, 3, 4]);
    assert_eq!(count_in_range(&y, ..), 7);
    assert_eq!(count_in_range(&y, -0.0f32..=0.0), 2);
}

/// The SIMD kernels compare floats in vector registers: subnormal data and
/// bounds must not be flushed to zero by any of them.
#[test]
fn subnormals_are_not_flushed() {
    let c = Checker::new();
    let mut data: Vec<f32> = (0..100).map(f32::from_bits).collect();
    data.extend((0..100).map(|b| -f32::from_bits(b)));
    c.check(&data, f32::from_bits(10)..f32::from_bits(20));
    c.check(&data, (Excluded(0.0f32), Unbounded));
    c.check(&data, ..-0.0f32);
    let mut data: Vec<f64> = (0..100).map(f64::from_bits).collect();
    data.extend((0..100).map(|b| -f64::from_bits(b)));
    c.check(&data, f64::from_bits(10)..=f64::from_bits(20));
    c.check(&data, (Excluded(0.0), Unbounded));
    c.check(&data, -f64::from_bits(50)..-0.0);
}

#[test]
fn empty_slices_and_ranges_give_empty_results() {
    let none: [f32; 0] = [];
    assert!(filter_indexes(&none, ..).is_empty());
    assert!(filter_values(&none, 0.0..1.0).is_empty());
    assert_eq!(count_in_range(&none, ..), 0);
    let x = [1u32, 2, 3];
    for f in [Filter::new(), Filter::new().threads(1)] {
        assert!(f.indexes(&x, 2..2).is_empty());
        assert!(f.indexes_u64(&x, 3..=2).is_empty());
        assert!(f.values(&x, (Excluded(2), Excluded(3))).is_empty());
        assert_eq!(f.count(&x, 4..), 0);
    }
}
