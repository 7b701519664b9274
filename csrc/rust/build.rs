//! Builds the C library (`lib/*.c` and the kernels) into a static archive,
//! with no crate dependencies: the C compiler named by `CC` (default `cc`) and
//! the archiver named by `AR` (default `ar`) are invoked directly.
//!
//! The C sources are read from `..` (csrc/) when the crate is in its
//! repository, else from `c/`, where a packaged crate has them (see
//! `c_sources`).
//!
//! The instruction sets, their target architectures and their compiler flags
//! are read from `kernels/isa.def`, the one table of them in the project.
//! Each kernel is compiled from its line's source file, `kernels/<source>.c`,
//! with that line's flags and nothing else (a file named by two lines is
//! compiled twice): never `-march=native`, so a binary built on one machine runs on every
//! CPU of its architecture and picks its kernel at run time.
//!
//! Environment, as for the Python package's setup.py:
//!   CC, AR                      the compiler and archiver (a command with arguments is fine)
//!   SIMDFILTER_DISABLE_KERNELS  comma-separated kernels to leave out (scalar always stays)
//!   SIMDFILTER_WERROR=1         compiler warnings are errors (CI)

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// One line of isa.def: `SF_ISA(name, source, arch, features, "flags")`.
struct Isa {
    name: String,
    source: String,
    arch: String,
    flags: Vec<String>,
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Parses the lines matching
/// `^SF_ISA\((\w+),\s*(\w+),\s*(\w+),\s*([\w|]+),\s*"([^"]*)"\)$`
/// (the format isa.def's header promises); any other line starting with
/// `SF_ISA(` is an error rather than silently skipped.
fn parse_isa_def(text: &str) -> Vec<Isa> {
    let mut out = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if !line.starts_with("SF_ISA(") {
            continue;
        }
        let bad = || panic!("isa.def:{}: cannot parse {:?}", lineno + 1, line);
        let inner = match line
            .strip_prefix("SF_ISA(")
            .and_then(|s| s.strip_suffix(')'))
        {
            Some(s) => s,
            None => bad(),
        };
        let mut parts = inner.splitn(5, ',');
        let name = parts.next().unwrap_or("").trim_end();
        let source = parts.next().unwrap_or("").trim();
        let arch = parts.next().unwrap_or("").trim();
        let features = parts.next().unwrap_or("").trim();
        let flags = parts.next().unwrap_or("").trim_start();
        let flags = match flags.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(f) if !f.contains('"') => f,
            _ => bad(),
        };
        if !is_word(name) || !is_word(source) || !is_word(arch) || !features.split('|').all(is_word)
        {
            bad();
        }
        out.push(Isa {
            name: name.to_string(),
            source: source.to_string(),
            arch: arch.to_string(),
            flags: flags.split_whitespace().map(String::from).collect(),
        });
    }
    assert!(
        out.iter().any(|isa| isa.name == "scalar"),
        "isa.def names no scalar kernel"
    );
    out
}

/// A command from an environment variable that may carry arguments ("ccache gcc").
fn tool(var: &str, default: &str) -> Vec<String> {
    println!("cargo:rerun-if-env-changed={}", var);
    let words: Vec<String> = env::var(var)
        .ok()
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    if words.is_empty() {
        vec![default.to_string()]
    } else {
        words
    }
}

fn rerun_if_changed(path: &Path) {
    println!("cargo:rerun-if-changed={}", path.display());
}

/// The files of `dir` whose names end in `ext`, sorted (a stable archive order).
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map_or(false, |e| e == ext))
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

struct Job {
    source: PathBuf,
    object: PathBuf,
    flags: Vec<String>,
}

fn spawn(cc: &[String], common: &[String], job: &Job) -> Child {
    let mut cmd = Command::new(&cc[0]);
    cmd.args(&cc[1..])
        .args(common)
        .args(&job.flags)
        .arg("-c")
        .arg(&job.source)
        .arg("-o")
        .arg(&job.object)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match cmd.spawn() {
        Ok(child) => child,
        Err(e) => panic!(
            "cannot run the C compiler {:?} (set CC to name one): {}",
            cc.join(" "),
            e
        ),
    }
}

/// The folder holding the C library's `include/`, `lib/` and `kernels/`.
///
/// In the repository that is `..` (csrc/): the crate builds the very files
/// the Python package builds. In a packaged crate (`cargo package`,
/// crates.io, `cargo vendor`) there is no `..` with them, and they are in the
/// crate's `c/`: in the repository, `c/include`, `c/lib` and `c/kernels` are
/// symbolic links to `../include` and so on, which `cargo package` follows,
/// copying the files themselves into the package.
fn c_sources(manifest: &Path) -> PathBuf {
    let is_c_root = |dir: &Path| {
        ["include/simdfilter.h", "kernels/isa.def", "lib/dispatch.c"]
            .iter()
            .all(|f| dir.join(f).is_file())
    };
    if let Some(parent) = manifest.parent() {
        if is_c_root(parent) {
            return parent.to_path_buf();
        }
    }
    let vendored = manifest.join("c");
    if is_c_root(&vendored) {
        return vendored;
    }
    panic!(
        "the C sources of simdfilter are neither in {} (the crate in its repository, csrc/rust) \
         nor in {} (a packaged crate, where c/include, c/lib and c/kernels are the \
         C sources; in the repository they are symbolic links to ../include and so on)",
        manifest
            .parent()
            .map_or(String::new(), |p| p.display().to_string()),
        vendored.display()
    );
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let target_arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let csrc = c_sources(&manifest);
    let include = csrc.join("include");
    let kernels = csrc.join("kernels");
    let lib = csrc.join("lib");

    rerun_if_changed(&manifest.join("build.rs"));
    let isa_def_path = kernels.join("isa.def");
    rerun_if_changed(&isa_def_path);
    let isa_def = fs::read_to_string(&isa_def_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {}", isa_def_path.display(), e));
    let table = parse_isa_def(&isa_def);

    println!("cargo:rerun-if-env-changed=SIMDFILTER_DISABLE_KERNELS");
    let disabled: Vec<String> = env::var("SIMDFILTER_DISABLE_KERNELS")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s != "scalar")
        .collect();

    // The kernels of the target architecture (and scalar, arch "any").
    let mut built: Vec<&Isa> = Vec::new();
    for isa in &table {
        if isa.arch != "any" && isa.arch != target_arch {
            continue;
        }
        if disabled.contains(&isa.name) {
            continue;
        }
        // Dispatch detects SVE through Linux's HWCAP only: elsewhere it could
        // never be chosen, so it is not built (as setup.py does).
        if isa.name == "sve" && target_os != "linux" {
            continue;
        }
        let source = kernels.join(format!("{}.c", isa.source));
        if !source.exists() {
            continue;
        }
        built.push(isa);
    }

    println!("cargo:rerun-if-env-changed=SIMDFILTER_WERROR");
    let mut common: Vec<String> = ["-std=c11", "-O3", "-pthread", "-fPIC", "-Wall", "-Wextra"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if env::var("SIMDFILTER_WERROR").map_or(false, |v| v == "1") {
        common.push("-Werror".to_string());
    }
    // As setup.py: the public header and the library's own; kernels/ for
    // the isa.def table, which the C sources may include.
    for dir in [&include, &lib, &kernels] {
        common.push(format!("-I{}", dir.display()));
    }
    // SF_HAVE_<name>, the name spelt as in isa.def (dispatch.c pastes it
    // with the preprocessor, which cannot change its case), as setup.py does.
    for isa in &built {
        common.push(format!("-DSF_HAVE_{}=1", isa.name));
    }

    let obj_dir = out_dir.join("obj");
    fs::create_dir_all(&obj_dir).expect("create OUT_DIR/obj");
    let mut jobs: Vec<Job> = Vec::new();
    // The library proper, compiled for the architecture's baseline.
    rerun_if_changed(&lib);
    for source in files_with_ext(&lib, "c") {
        let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
        jobs.push(Job {
            object: obj_dir.join(format!("lib_{}.o", stem)),
            source,
            flags: Vec::new(),
        });
    }
    // Layout facts the Rust declarations are tested against (src/ffi.rs).
    jobs.push(Job {
        source: manifest.join("layout.c"),
        object: obj_dir.join("rust_layout.o"),
        flags: Vec::new(),
    });
    for isa in &built {
        jobs.push(Job {
            source: kernels.join(format!("{}.c", isa.source)),
            object: obj_dir.join(format!("kernel_{}.o", isa.name)),
            flags: isa.flags.clone(),
        });
    }
    for dir in [&include, &csrc, &kernels, &lib] {
        for header in files_with_ext(dir, "h") {
            rerun_if_changed(&header);
        }
    }
    for job in &jobs {
        rerun_if_changed(&job.source);
    }

    // Compile NUM_JOBS files at a time (cargo's -j).
    let cc = tool("CC", "cc");
    let parallel: usize = env::var("NUM_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut failed = false;
    for batch in jobs.chunks(parallel) {
        let children: Vec<Child> = batch.iter().map(|job| spawn(&cc, &common, job)).collect();
        for (job, child) in batch.iter().zip(children) {
            let output = child.wait_with_output().expect("wait for the C compiler");
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            if output.status.success() {
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    println!("cargo:warning={}", line);
                }
            } else {
                failed = true;
                eprintln!(
                    "{} {} {} -c {} failed:\n{}",
                    cc.join(" "),
                    common.join(" "),
                    job.flags.join(" "),
                    job.source.display(),
                    text
                );
            }
        }
    }
    if failed {
        panic!("compiling the C library failed (the compiler's messages are above)");
    }

    let archive = out_dir.join("libsimdfilter.a");
    // `ar r` keeps members it is not given: start from nothing.
    let _ = fs::remove_file(&archive);
    let ar = tool("AR", "ar");
    let status = Command::new(&ar[0])
        .args(&ar[1..])
        .arg("crs")
        .arg(&archive)
        .args(jobs.iter().map(|j| &j.object))
        .status()
        .unwrap_or_else(|e| panic!("cannot run the archiver {:?} (set AR): {}", ar.join(" "), e));
    assert!(
        status.success(),
        "{} crs {} failed",
        ar.join(" "),
        archive.display()
    );

    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=static=simdfilter");
    if target_os == "linux" {
        println!("cargo:rustc-link-lib=pthread");
    }
    let names: Vec<&str> = built.iter().map(|isa| isa.name.as_str()).collect();
    // Read by the crate's tests: the kernels this build compiled in.
    println!(
        "cargo:rustc-env=SIMDFILTER_BUILT_KERNELS={}",
        names.join(",")
    );
}
