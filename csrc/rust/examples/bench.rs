//! The crate against the naive iterator filter, on u32 data:
//!
//!     cargo run --release --manifest-path csrc/rust/Cargo.toml --example bench
//!
//! 64 Ki, 1 Mi and 16 Mi elements, 1% and 50% of them in range; the best of
//! several runs each; ratios (naive time / crate time, higher is better).
//! One thread, as the naive filter runs (a new vector per call, and into a
//! reused one), and the library's automatic thread count. Timings on a machine that is running other work are not
//! measurements: say so when reporting them.

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use simdfilter::{active_kernel, available_kernels, Filter};

/// SplitMix64, as the tests use.
struct Rng(u64);
impl Rng {
    fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    }
}

fn naive(v: &[u32], range: &RangeInclusive<u32>) -> Vec<u32> {
    v.iter()
        .enumerate()
        .filter(|(_, x)| range.contains(x))
        .map(|(i, _)| i as u32)
        .collect()
}

/// The best time of `reps` runs of `f` (at least one), and what it returned.
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = f();
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed());
    }
    (best, out)
}

fn main() {
    let kernels: Vec<String> = available_kernels().iter().map(|k| k.to_string()).collect();
    println!(
        "simdfilter {} kernel (available: {}), u32 data, best of several runs",
        active_kernel(),
        kernels.join(", ")
    );
    println!(
        "{:>7} {:>4} {:>11} {:>11} {:>6} {:>11} {:>6} {:>11} {:>6}",
        "n", "sel", "naive", "1 thread", "ratio", "1t, into", "ratio", "auto", "ratio"
    );
    let mut rng = Rng(42);
    for &n in &[64usize << 10, 1 << 20, 16 << 20] {
        let data: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let reps = ((256usize << 20) / n).clamp(3, 200);
        for &(label, hi) in &[("1%", u32::MAX / 100), ("50%", u32::MAX / 2)] {
            let range = 0..=hi;
            let (t_naive, expect) = best(reps, || naive(&data, &range));
            let one = Filter::new().threads(1);
            let (t_one, got) = best(reps, || one.indexes(&data, range.clone()));
            assert_eq!(got, expect);
            let mut reused = Vec::with_capacity(n);
            let (t_into, _) = best(reps, || one.indexes_into(&data, range.clone(), &mut reused));
            assert_eq!(reused, expect);
            let auto = Filter::new();
            let (t_auto, got) = best(reps, || auto.indexes(&data, range.clone()));
            assert_eq!(got, expect);
            let us = |d: Duration| format!("{:.1} us", d.as_secs_f64() * 1e6);
            println!(
                "{:>7} {:>4} {:>11} {:>11} {:>5.1}x {:>11} {:>5.1}x {:>11} {:>5.1}x",
                format!("{}Ki", n >> 10),
                label,
                us(t_naive),
                us(t_one),
                t_naive.as_secs_f64() / t_one.as_secs_f64(),
                us(t_into),
                t_naive.as_secs_f64() / t_into.as_secs_f64(),
                us(t_auto),
                t_naive.as_secs_f64() / t_auto.as_secs_f64(),
            );
        }
    }
}
