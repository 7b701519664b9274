//! Every kernel this machine runs, pinned in turn, against the naive iterator
//! filter, for every element type: lengths 0..300, random lengths up to 10^6,
//! sub-slices starting anywhere, several thread counts, every range form.

mod common;

use common::{bounds, check_form, mixed_data, Checker, Rng, TestElem};

/// Every length from 0 to 299, every range form, data around the bounds.
fn lengths_0_to_300<T: TestElem>(seed: u64) {
    let c = Checker::new();
    let mut rng = Rng::new(seed);
    for n in 0..300 {
        let (a, b) = bounds::<T>(&mut rng);
        let data = mixed_data(&mut rng, n, &[a, b]);
        each_form!(c, &data, a, b);
    }
}

/// Random lengths up to 10^6 (and 10^6 itself), a random range form each.
fn random_long<T: TestElem>(seed: u64) {
    let c = Checker::new();
    let mut rng = Rng::new(seed);
    for &n in &[
        1_000_000,
        rng.below(1_000_001) as usize,
        rng.below(100_000) as usize,
    ] {
        let (a, b) = bounds::<T>(&mut rng);
        let data = mixed_data(&mut rng, n, &[a, b]);
        check_form(&c, &data, a, b, 0); // a..=b, the common case
        check_form(&c, &data, a, b, rng.below(9));
    }
}

/// Sub-slices starting at every element offset up to 16 past a vector
/// boundary, with lengths around vector sizes: positions are relative to the
/// sub-slice, and nothing outside it is read into the result.
fn unaligned_subslices<T: TestElem>(seed: u64) {
    let c = Checker::new();
    let mut rng = Rng::new(seed);
    let (a, b) = bounds::<T>(&mut rng);
    let buffer = mixed_data(&mut rng, 1200, &[a, b]);
    for offset in 0..17 {
        for &len in &[
            0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000,
        ] {
            check_form(&c, &buffer[offset..offset + len], a, b, rng.below(9));
        }
    }
}

/// Explicit thread counts, on inputs large enough to be split.
fn threads<T: TestElem>(seed: u64) {
    let mut rng = Rng::new(seed);
    let (a, b) = bounds::<T>(&mut rng);
    let data = mixed_data(&mut rng, 1_000_003, &[a, b]);
    for &t in &[1, 2, 3, 8, 300] {
        let c = Checker::with_threads(t);
        check_form(&c, &data, a, b, 0);
        check_form(&c, &data[5..], a, b, 2);
    }
}

macro_rules! per_type {
    ($($t:ident: $seed:expr),*) => {$(
        mod $t {
            #[test]
            fn lengths_0_to_300() { super::lengths_0_to_300::<$t>($seed) }
            #[test]
            fn random_long() { super::random_long::<$t>($seed + 1) }
            #[test]
            fn unaligned_subslices() { super::unaligned_subslices::<$t>($seed + 2) }
            #[test]
            fn threads() { super::threads::<$t>($seed + 3) }
        }
    )*};
}

per_type!(u8: 100, u16: 200, u32: 300, u64: 400, i8: 500, i16: 600, i32: 700, i64: 800,
          f32: 900, f64: 1000);

/// The kernels the tests above pin: every one this CPU runs, and those are
/// among what build.rs compiled.
#[test]
fn kernels_under_test() {
    let built: Vec<&str> = env!("SIMDFILTER_BUILT_KERNELS").split(',').collect();
    let compiled = simdfilter::compiled_kernels();
    let mut sorted_built = built.clone();
    sorted_built.sort_unstable();
    let mut sorted_compiled = compiled.clone();
    sorted_compiled.sort_unstable();
    assert_eq!(
        sorted_compiled, sorted_built,
        "dispatch's table and build.rs disagree"
    );
    let available: Vec<&str> = simdfilter::available_kernels()
        .iter()
        .map(|k| k.name())
        .collect();
    assert_eq!(available[0], "scalar");
    assert!(available.iter().all(|k| compiled.contains(k)));
    eprintln!(
        "kernels pinned in turn by these tests: {}",
        available.join(", ")
    );
    eprintln!(
        "compiled in: {}; CPU features: {}",
        compiled.join(", "),
        simdfilter::cpu_features().join(" ")
    );
}
