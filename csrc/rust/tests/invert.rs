//! `Filter::invert(true)`: every kernel this machine runs, pinned in turn,
//! against the naive complement (NaN outside every range, so kept), for every
//! element type, lengths 0..300, every range form, empty ranges and ranges
//! over the whole type included.

mod common;

use std::ops::{Bound, RangeBounds};

use common::{bounds, mixed_data, Rng, TestElem};
use simdfilter::{available_kernels, Filter};

/// The positions whose value is not in `range`: NaN included (`x != x`).
#[allow(clippy::eq_op)] // x == x is false for NaN only, for every element type
fn naive_outside<T: TestElem, R: RangeBounds<T>>(data: &[T], range: &R) -> Vec<u32> {
    data.iter()
        .enumerate()
        .filter(|(_, x)| !(range.contains(*x) && *x == *x))
        .map(|(i, _)| i as u32)
        .collect()
}

fn check<T: TestElem, R: RangeBounds<T> + Clone + std::fmt::Debug>(data: &[T], range: R) {
    let want = naive_outside(data, &range);
    for k in available_kernels() {
        for threads in [1, 2] {
            let f = Filter::new().kernel(k).threads(threads).invert(true);
            let what = format!("{} {} {:?} n={}", k.name(), T::NAME, range, data.len());
            assert_eq!(f.indexes(data, range.clone()), want, "{}", what);
            let wide: Vec<u64> = want.iter().map(|&i| u64::from(i)).collect();
            assert_eq!(f.indexes_u64(data, range.clone()), wide, "{}", what);
            assert_eq!(f.count(data, range.clone()), want.len(), "{}", what);
            let values: Vec<u64> = f
                .values(data, range.clone())
                .iter()
                .map(|v| v.bits())
                .collect();
            let want_values: Vec<u64> = want.iter().map(|&i| data[i as usize].bits()).collect();
            assert_eq!(values, want_values, "{}", what);
            let mask = f.in_range(data, range.clone());
            let want_mask: Vec<bool> = (0..data.len() as u32).map(|i| want.contains(&i)).collect();
            assert_eq!(mask, want_mask, "{}", what);
        }
    }
}

fn every_form<T: TestElem>(seed: u64) {
    let mut rng = Rng::new(seed);
    for n in 0..300 {
        let (a, b) = bounds::<T>(&mut rng);
        let data = mixed_data(&mut rng, n, &[a, b]);
        match rng.below(6) {
            0 => check(&data, a..b),
            1 => check(&data, a..),
            2 => check(&data, ..=b),
            3 => check(&data, ..),
            4 => check(&data, (Bound::Excluded(a), Bound::Excluded(b))),
            _ => check(&data, a..=b),
        }
    }
}

macro_rules! tests {
    ($($name:ident: $t:ty, $seed:expr;)*) => {$(
        #[test]
        fn $name() {
            every_form::<$t>($seed);
        }
    )*};
}

tests! {
    invert_u8: u8, 1;
    invert_i8: i8, 2;
    invert_u16: u16, 3;
    invert_i16: i16, 4;
    invert_u32: u32, 5;
    invert_i32: i32, 6;
    invert_u64: u64, 7;
    invert_i64: i64, 8;
    invert_f32: f32, 9;
    invert_f64: f64, 10;
}

#[test]
fn whole_type_keeps_nothing_and_empty_keeps_everything() {
    let data: Vec<i8> = (i8::MIN..=i8::MAX).collect();
    let f = Filter::new().invert(true);
    assert_eq!(f.count(&data, ..), 0);
    assert_eq!(f.count(&data, i8::MIN..=i8::MAX), 0);
    assert_eq!(f.count(&data, 3..3), 256);
    assert_eq!(f.indexes(&data, -127..), [0]);
    let floats = [f64::NAN, 1.0, f64::INFINITY];
    assert_eq!(f.indexes(&floats, ..), [0]);
    assert_eq!(f.indexes(&floats, 2.0..2.0), [0, 1, 2]);
}
