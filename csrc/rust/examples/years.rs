//! The README's example: which people were born between 1982 and 2000?
//!
//!     cargo run --manifest-path csrc/rust/Cargo.toml --example years

use simdfilter::{active_kernel, available_kernels, count_in_range, filter_indexes, filter_values};

fn main() {
    let names = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"];
    let years: [u32; 8] = [1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996];

    let born = filter_indexes(&years, 1982..=2000);
    assert_eq!(born, [0, 5, 7]);
    let who: Vec<&str> = born.iter().map(|&i| names[i as usize]).collect();
    println!("born 1982..=2000: positions {:?}: {}", born, who.join(", "));
    println!("their years: {:?}", filter_values(&years, 1982..=2000));
    println!("born this century: {}", count_in_range(&years, 2000..));
    println!("born before 1950: {:?}", filter_indexes(&years, ..1950));

    let kernels: Vec<&str> = available_kernels().iter().map(|k| k.name()).collect();
    println!(
        "kernel: {} (available here: {})",
        active_kernel(),
        kernels.join(", ")
    );
}
