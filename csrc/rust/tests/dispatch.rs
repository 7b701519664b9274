//! Dispatch's rule fed described CPUs, on any machine: the table of CPU kinds
//! the Python suite reads too (tests/cpu_kinds.txt at the repository's root),
//! so the two faces are checked against one list of expected defaults and
//! `SIMDFILTER_KERNEL` answers. Skipped, saying so, where the crate is built
//! outside the repository (from its package).

use simdfilter::{kernel_choice, Error};

struct CpuKind {
    name: String,
    arch: String,
    features: Vec<String>,
    default: String,
    runs: Vec<String>,
}

fn cpu_kinds() -> Option<Vec<CpuKind>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/cpu_kinds.txt");
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            println!(
                "SKIPPED: {} not readable ({}): the crate is outside its repository",
                path, e
            );
            return None;
        }
    };
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let kinds: Vec<CpuKind> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 5, "a line of cpu_kinds.txt: {}", l);
            CpuKind {
                name: f[0].to_string(),
                arch: f[1].to_string(),
                features: words(f[2]),
                default: f[3].to_string(),
                runs: words(f[4]),
            }
        })
        .collect();
    assert!(kinds.len() >= 9, "cpu_kinds.txt has {} kinds", kinds.len());
    Some(kinds)
}

const KERNELS: [(&str, &str); 7] = [
    ("scalar", "any"),
    ("sse41", "x86_64"),
    ("avx2", "x86_64"),
    ("avx512_zen4", "x86_64"),
    ("avx512", "x86_64"),
    ("neon", "aarch64"),
    ("sve", "aarch64"),
];

#[test]
fn every_described_cpu_gets_its_default_and_every_override() {
    let kinds = match cpu_kinds() {
        Some(k) => k,
        None => return,
    };
    for cpu in &kinds {
        let features: Vec<&str> = cpu.features.iter().map(|f| f.as_str()).collect();
        assert_eq!(
            kernel_choice(&cpu.arch, &features, None),
            Ok(cpu.default.as_str()),
            "{}",
            cpu.name
        );
        assert_eq!(
            kernel_choice(&cpu.arch, &features, Some(" ")),
            Ok(cpu.default.as_str())
        );
        for (kernel, arch) in KERNELS {
            let got = kernel_choice(&cpu.arch, &features, Some(kernel));
            if cpu.runs.iter().any(|r| r == kernel) {
                assert_eq!(got, Ok(kernel), "{} asked for {}", cpu.name, kernel);
            } else if arch != cpu.arch {
                assert_eq!(
                    got,
                    Err(Error::KernelNotBuilt(kernel.into())),
                    "{} {}",
                    cpu.name,
                    kernel
                );
            } else {
                assert_eq!(
                    got,
                    Err(Error::UnsupportedKernel(kernel.into())),
                    "{} {}",
                    cpu.name,
                    kernel
                );
            }
        }
        assert_eq!(
            kernel_choice(&cpu.arch, &features, Some("bogus")),
            Err(Error::UnknownKernel("bogus".into()))
        );
    }
}

#[test]
fn unknown_descriptions_are_errors() {
    assert!(matches!(
        kernel_choice("riscv64", &[], None),
        Err(Error::UnknownCpu(_))
    ));
    assert!(matches!(
        kernel_choice("x86_64", &["avx3"], None),
        Err(Error::UnknownCpu(_))
    ));
    assert!(matches!(
        kernel_choice("x86\0", &[], None),
        Err(Error::UnknownCpu(_))
    ));
}
