//! The API around the kernels: reused output vectors, the u32 length limit,
//! kernel names and errors, concurrent calls, and SIMDFILTER_KERNEL (in child
//! processes, since it is read once per process).

mod common;

use std::process::Command;

use common::{mixed_data, naive_indexes, Rng};
use simdfilter::{
    active_kernel, available_kernels, compiled_kernels, filter_indexes, filter_indexes_into,
    filter_indexes_usize, use_kernel, Error, Filter, Kernel,
};

#[test]
fn indexes_into_reuses_capacity() {
    let mut rng = Rng::new(7);
    let data: Vec<u32> = (0..10_000).map(|_| rng.below(1000) as u32).collect();
    let mut out: Vec<u32> = Vec::with_capacity(data.len());
    let buffer = out.as_ptr();
    for lo in 0..50u32 {
        let n = filter_indexes_into(&data, lo * 20..lo * 20 + 100, &mut out);
        assert_eq!(n, out.len());
        assert_eq!(out, naive_indexes(&data, &(lo * 20..lo * 20 + 100)));
        assert_eq!(
            out.as_ptr(),
            buffer,
            "reallocated although the capacity sufficed"
        );
        assert_eq!(out.capacity(), data.len());
    }
    // Shorter inputs fit too; an empty range clears.
    assert_eq!(filter_indexes_into(&data[..10], .., &mut out), 10);
    assert_eq!(out.as_ptr(), buffer);
    assert_eq!(filter_indexes_into(&data, 5..5, &mut out), 0);
    assert!(out.is_empty());
    assert_eq!(filter_indexes_into(&data[..0], .., &mut out), 0);
    assert!(out.is_empty());
}

#[test]
fn indexes_into_grows_a_small_vector_and_drops_old_contents() {
    let data = vec![3u8; 5000];
    let mut out = vec![99u32; 10];
    assert_eq!(filter_indexes_into(&data, 3..=3, &mut out), 5000);
    assert!(out.capacity() >= 5000);
    assert_eq!(out, (0..5000).collect::<Vec<u32>>());
    assert_eq!(filter_indexes_into(&data, 4.., &mut out), 0);
    assert!(out.is_empty());
}

#[test]
fn results_do_not_keep_the_working_buffer() {
    let data: Vec<u32> = (0..1_000_000).collect();
    let v = filter_indexes(&data, 10..20);
    assert_eq!(v, (10..20).collect::<Vec<u32>>());
    assert!(
        v.capacity() < 1000,
        "capacity {} for 10 results",
        v.capacity()
    );
}

/// 2^32 + 3 one-byte elements, calloc'd: the u32 form refuses on the length
/// alone, touching nothing. Counting reads them all, but untouched pages are
/// the kernel's zero page: 4 GiB of address space, next to no memory.
#[test]
#[cfg(target_pointer_width = "64")]
fn u32_positions_stop_at_2_pow_32_elements() {
    let n = (1usize << 32) + 3;
    let mut big: Vec<u8> = Vec::new();
    if big.try_reserve_exact(n).is_err() {
        eprintln!(
            "SKIP u32_positions_stop_at_2_pow_32_elements: cannot reserve 4 GiB of address space"
        );
        return;
    }
    drop(big);
    let mut big = vec![0u8; n];
    big[n - 3..].copy_from_slice(&[1, 2, 3]);
    // Counts past u32::MAX, in threads or not.
    assert_eq!(Filter::new().threads(2).count(&big, 0..=0), 1 << 32);
    assert_eq!(Filter::new().threads(1).count(&big, 1..), 3);
    let err = std::panic::catch_unwind(|| filter_indexes(&big, 1..=1)).unwrap_err();
    let msg = err
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(
        msg.contains("at most u32::MAX (2^32 - 1) elements, and this one has 4294967299"),
        "{}",
        msg
    );
    assert!(msg.contains("filter_indexes_u64"), "{}", msg);
    let mut out = Vec::new();
    assert!(std::panic::catch_unwind(move || filter_indexes_into(&big[..], .., &mut out)).is_err());
}

#[test]
fn u32_positions_up_to_u32_max() {
    // The largest position a u32 holds comes out right at the end of a slice
    // of u32::MAX elements: too big to test here, so check the top positions
    // of a sub-slice instead, and that u64 positions agree with u32 ones.
    let data: Vec<u16> = (0..60_000).collect();
    let idx = filter_indexes(&data, 59_990..);
    assert_eq!(idx, (59_990..60_000).collect::<Vec<u32>>());
    let idx64 = simdfilter::filter_indexes_u64(&data, 59_990..);
    assert_eq!(idx64, (59_990..60_000).collect::<Vec<u64>>());
}

#[test]
fn kernel_names() {
    let available = available_kernels();
    assert_eq!(available[0].name(), "scalar");
    assert!(available.contains(&active_kernel()));
    let compiled = compiled_kernels();
    for k in &available {
        assert_eq!(Kernel::get(k.name()), Ok(*k));
        assert!(compiled.contains(&k.name()));
        assert_eq!(format!("{}", k), k.name());
        assert_eq!(format!("{:?}", k), format!("Kernel({:?})", k.name()));
    }
    // The process default is dispatch's rule's for this CPU unless the
    // environment said otherwise (not the last kernel listed: on AMD with
    // AVX-512 that is avx512, and the default avx512_zen4).
    if std::env::var_os("SIMDFILTER_KERNEL").is_none() {
        assert_eq!(active_kernel().name(), rule_default());
    }
}

#[test]
fn kernel_errors_name_the_available_kernels() {
    let names: Vec<&str> = available_kernels().iter().map(|k| k.name()).collect();
    let listed = format!("; available kernels: {}", names.join(", "));

    let e = use_kernel("mmx").unwrap_err();
    assert_eq!(e, Error::UnknownKernel("mmx".into()));
    assert_eq!(e.to_string(), format!("unknown kernel \"mmx\"{}", listed));
    assert_eq!(Kernel::get(""), Err(Error::UnknownKernel(String::new())));
    assert_eq!(
        Kernel::get("sca\0lar"),
        Err(Error::UnknownKernel("sca\0lar".into()))
    );
    assert_eq!(
        Kernel::get("Scalar"),
        Err(Error::UnknownKernel("Scalar".into()))
    );

    // A kernel of the other architecture is known to the project, not built here.
    let other = if cfg!(target_arch = "x86_64") {
        "neon"
    } else {
        "avx2"
    };
    let other_arch = if cfg!(target_arch = "x86_64") {
        "aarch64"
    } else {
        "x86_64"
    };
    let e = Kernel::get(other).unwrap_err();
    assert_eq!(e, Error::KernelNotBuilt(other.into()));
    assert_eq!(
        e.to_string(),
        format!(
            "the kernel \"{}\" is not in this build (it is an {} kernel){}",
            other, other_arch, listed
        )
    );

    // Compiled in but not runnable here, if this CPU lacks one.
    for name in compiled_kernels() {
        if !names.contains(&name) {
            let e = Kernel::get(name).unwrap_err();
            assert_eq!(e, Error::UnsupportedKernel(name.into()));
            assert!(e
                .to_string()
                .starts_with("this CPU or OS cannot run the kernel"));
            eprintln!("{} is compiled in, not runnable here: {}", name, e);
        }
    }
    // Failed calls leave the default alone.
    assert!(available_kernels().contains(&active_kernel()));
}

/// Threads pinning different kernels at once, with different thread counts,
/// all against the same answer.
#[test]
fn concurrent_calls_with_different_kernels() {
    let mut rng = Rng::new(11);
    let data: Vec<i32> = mixed_data(&mut rng, 300_000, &[-1000, 1000]);
    let expect = naive_indexes(&data, &(-1000..=1000));
    let kernels = available_kernels();
    std::thread::scope(|s| {
        for (i, &k) in kernels.iter().cycle().take(8).enumerate() {
            let (data, expect) = (&data, &expect);
            s.spawn(move || {
                let f = Filter::new().kernel(k).threads(1 + i % 3);
                for _ in 0..20 {
                    assert_eq!(f.indexes(data, -1000..=1000), *expect, "{}", k);
                    assert_eq!(f.count(data, -1000..=1000), expect.len(), "{}", k);
                }
            });
        }
    });
}

// ---- SIMDFILTER_KERNEL --------------------------------------------------------

/// Runs this test binary again, only the `child_probe` test, with
/// SIMDFILTER_KERNEL set as given (or removed for None).
fn child(kernel_env: Option<&str>, mode: &str) -> std::process::Output {
    let exe = std::env::current_exe().expect("the test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["child_probe", "--exact", "--nocapture", "--test-threads=1"])
        .env("SIMDFILTER_RUST_CHILD", mode);
    match kernel_env {
        Some(v) => cmd.env("SIMDFILTER_KERNEL", v),
        None => cmd.env_remove("SIMDFILTER_KERNEL"),
    };
    cmd.output().expect("run the test binary")
}

/// In a child run (SIMDFILTER_RUST_CHILD set), reports what the library did
/// with SIMDFILTER_KERNEL; in the normal run, only checks that the default is
/// a runnable kernel.
#[test]
fn child_probe() {
    let mode = match std::env::var("SIMDFILTER_RUST_CHILD") {
        Ok(m) => m,
        Err(_) => {
            assert!(available_kernels().contains(&active_kernel()));
            return;
        }
    };
    match mode.as_str() {
        "active" => {
            println!("active={}", active_kernel());
            match simdfilter::environment_error() {
                Some(e) => println!("error={}", e),
                None => println!("no error"),
            }
        }
        "filter" => {
            // The first use is a filter call: it applies the environment too.
            assert_eq!(filter_indexes(&[1u8, 2, 3], 2..), [1, 2]);
            println!("active={}", active_kernel());
        }
        "read-once" => {
            let first = active_kernel();
            std::env::set_var("SIMDFILTER_KERNEL", "scalar");
            assert_eq!(active_kernel(), first, "the variable was read again");
            // use_kernel overrides it, and the environment is not reapplied.
            use_kernel("scalar").unwrap();
            assert_eq!(active_kernel().name(), "scalar");
            println!("active={}", first);
        }
        "pinned" => {
            // Pinned calls do not consult the environment.
            let scalar = Kernel::get("scalar").unwrap();
            assert_eq!(Filter::new().kernel(scalar).count(&[1u8, 2], ..), 2);
            println!("pinned ok");
            println!("active={}", active_kernel());
        }
        other => panic!("unknown child mode {}", other),
    }
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn environment_picks_every_available_kernel() {
    for k in available_kernels() {
        for mode in ["active", "filter", "read-once"] {
            let value = if mode == "filter" {
                format!("  {} ", k)
            } else {
                k.to_string()
            };
            let o = child(Some(&value), mode);
            assert!(
                o.status.success(),
                "{} {}: {}{}",
                k,
                mode,
                stdout(&o),
                stderr(&o)
            );
            assert!(
                stdout(&o).contains(&format!("active={}\n", k)),
                "{} {}: {}",
                k,
                mode,
                stdout(&o)
            );
        }
    }
}

/// The default dispatch's rule gives this CPU, described by its own features.
fn rule_default() -> &'static str {
    let arch = if cfg!(target_arch = "x86_64") {
        "x86_64"
    } else if cfg!(target_arch = "aarch64") {
        "aarch64"
    } else {
        "any"
    };
    let features = simdfilter::cpu_features();
    let features: Vec<&str> = features.iter().map(|f| f.as_str()).collect();
    simdfilter::kernel_choice(arch, &features, None).expect("this CPU's own features")
}

#[test]
fn environment_unset_or_empty_gives_the_rules_default() {
    let best = rule_default();
    for value in [None, Some(""), Some("   ")] {
        let o = child(value, "active");
        assert!(o.status.success(), "{:?}: {}", value, stderr(&o));
        assert!(
            stdout(&o).contains(&format!("active={}\n", best)),
            "{:?}: {}",
            value,
            stdout(&o)
        );
    }
}

#[test]
fn environment_with_a_bad_name_keeps_the_best_kernel_and_says_why() {
    let best = rule_default();
    let names: Vec<String> = available_kernels().iter().map(|k| k.to_string()).collect();
    let o = child(Some("bogus"), "active");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!("active={}\n", best)), "{}", out);
    assert!(
        out.contains(&format!(
            "error=unknown kernel \"bogus\"; available kernels: {}\n",
            names.join(", ")
        )),
        "{}",
        out
    );
    let other = if cfg!(target_arch = "x86_64") {
        "sve"
    } else {
        "avx512"
    };
    let o = child(Some(other), "filter");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("active={}\n", best)),
        "{}",
        stdout(&o)
    );
    let o = child(Some(other), "active");
    assert!(
        stdout(&o).contains("is not in this build"),
        "{}",
        stdout(&o)
    );

    let o = child(Some("bogus"), "pinned");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("pinned ok"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("active={}\n", best)),
        "{}",
        stdout(&o)
    );

    // Unset, blank or good: no error.
    for value in [None, Some(""), Some(" scalar ")] {
        let o = child(value, "active");
        assert!(
            stdout(&o).contains("no error\n"),
            "{:?}: {}",
            value,
            stdout(&o)
        );
    }
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // 5..1 is the empty range under test
fn usize_positions_are_the_u32_ones_widened() {
    let mut rng = Rng::new(27);
    let data = mixed_data::<u32>(&mut rng, 10_007, &[1000, 1_000_000]);
    for k in available_kernels() {
        let f = Filter::new().kernel(k);
        let small = f.indexes(&data, 1000..=1_000_000);
        let wide: Vec<usize> = small.iter().map(|&i| i as usize).collect();
        assert_eq!(f.indexes_usize(&data, 1000..=1_000_000), wide, "{}", k);
    }
    assert!(filter_indexes_usize(&[] as &[u8], ..).is_empty());
    assert!(filter_indexes_usize(&[1u8, 2], 5..1).is_empty());
}
