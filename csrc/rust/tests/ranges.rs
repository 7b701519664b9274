//! `Filter::indexes_any`, `values_any` and `count_any`: every kernel this
//! machine runs, pinned in turn, against the naive "in any of the ranges"
//! (inverted: in none, NaN included), for every element type, lengths 0..300,
//! 0 to 10 ranges (more than one kernel pass of 8) in any order, overlapping,
//! nested or empty.

mod common;

use std::ops::{Bound, RangeBounds};

use common::{bounds, mixed_data, Rng, TestElem};
use simdfilter::{available_kernels, Filter};

type Pair<T> = (Bound<T>, Bound<T>);

#[allow(clippy::eq_op)] // x == x is false for NaN only, for every element type
fn naive<T: TestElem>(data: &[T], ranges: &[Pair<T>], invert: bool) -> Vec<u32> {
    data.iter()
        .enumerate()
        .filter(|(_, x)| {
            let inside = ranges.iter().any(|r| r.contains(*x)) && *x == *x;
            inside != invert
        })
        .map(|(i, _)| i as u32)
        .collect()
}

fn check<T: TestElem>(data: &[T], ranges: &[Pair<T>]) {
    for invert in [false, true] {
        let want = naive(data, ranges, invert);
        let want_values: Vec<u64> = want.iter().map(|&i| data[i as usize].bits()).collect();
        for k in available_kernels() {
            let f = Filter::new().kernel(k).threads(1).invert(invert);
            let what = format!(
                "{} {} invert={} {:?} n={}",
                k.name(),
                T::NAME,
                invert,
                ranges,
                data.len()
            );
            assert_eq!(f.indexes_any(data, ranges), want, "{}", what);
            assert_eq!(f.count_any(data, ranges), want.len(), "{}", what);
            let values: Vec<u64> = f
                .values_any(data, ranges)
                .iter()
                .map(|v| v.bits())
                .collect();
            assert_eq!(values, want_values, "{}", what);
        }
    }
}

fn random_pair<T: TestElem>(rng: &mut Rng, a: T, b: T) -> Pair<T> {
    let end = |rng: &mut Rng, x: T| match rng.below(4) {
        0 => Bound::Unbounded,
        1 => Bound::Excluded(x),
        _ => Bound::Included(x),
    };
    (end(rng, a), end(rng, b))
}

fn every_count<T: TestElem>(seed: u64) {
    let mut rng = Rng::new(seed);
    for n in 0..300 {
        let k = rng.below(11) as usize;
        let mut ends = Vec::new();
        let mut ranges = Vec::new();
        for _ in 0..k {
            let (a, b) = bounds::<T>(&mut rng);
            ends.extend([a, b]);
            ranges.push(random_pair(&mut rng, a, b));
        }
        let data = mixed_data(&mut rng, n, &ends);
        check(&data, &ranges);
    }
}

#[test]
fn u8_ranges() {
    every_count::<u8>(1);
}
#[test]
fn i16_ranges() {
    every_count::<i16>(2);
}
#[test]
fn u32_ranges() {
    every_count::<u32>(3);
}
#[test]
fn i64_ranges() {
    every_count::<i64>(4);
}
#[test]
fn f32_ranges() {
    every_count::<f32>(5);
}
#[test]
fn f64_ranges() {
    every_count::<f64>(6);
}

/// Long enough for several threads and for several 2,048-element blocks.
#[test]
fn threads_and_blocks() {
    let data: Vec<i32> = (0..300_000i64)
        .map(|i| ((i * 7919) % 10_000) as i32)
        .collect();
    let ranges = [100..200, 150..400, 9_000..9_001, 5..5];
    let want = naive(
        &data,
        &ranges
            .iter()
            .map(|r| (r.start_bound().cloned(), r.end_bound().cloned()))
            .collect::<Vec<_>>(),
        false,
    );
    for threads in [1, 2, 4] {
        assert_eq!(
            Filter::new().threads(threads).indexes_any(&data, &ranges),
            want
        );
    }
}
