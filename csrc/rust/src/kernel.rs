//! Kernels: which are compiled in and runnable, which one is the process
//! default, and the `SIMDFILTER_KERNEL` environment variable.

use std::fmt;

use crate::ffi::{self, KernelRef};
use crate::sys;

/// One instruction set's kernels, runnable on this CPU and OS.
///
/// Every `Kernel` value is runnable here: the only ways to get one are
/// [`available_kernels`], [`active_kernel`] and [`Kernel::get`], which check.
/// Pin one for a call with [`Filter::kernel`](crate::Filter::kernel), or make
/// it the process default with [`use_kernel`].
///
/// ```
/// let scalar = simdfilter::Kernel::get("scalar").unwrap();
/// assert_eq!(scalar.name(), "scalar");
/// assert_eq!(scalar.to_string(), "scalar");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Kernel(pub(crate) KernelRef);

impl Kernel {
    /// The runnable kernel called `name`.
    ///
    /// # Errors
    /// [`Error::UnknownKernel`], [`Error::UnsupportedKernel`] or
    /// [`Error::KernelNotBuilt`], as for [`use_kernel`].
    ///
    /// ```
    /// use simdfilter::{Error, Kernel};
    ///
    /// assert_eq!(Kernel::get("scalar").unwrap().name(), "scalar");
    /// assert!(matches!(Kernel::get("mmx"), Err(Error::UnknownKernel(_))));
    /// ```
    pub fn get(name: &str) -> Result<Kernel, Error> {
        ffi::kernel_select(name)
            .map(Kernel)
            .map_err(|rc| Error::from_code(rc, name))
    }

    /// The kernel's name: `"scalar"`, `"sse41"`, `"avx2"`, `"avx512_zen4"`,
    /// `"avx512"`, `"neon"` or `"sve"` (the two AVX-512 kernels differ in how
    /// they store what a vector keeps; the default follows the CPU).
    ///
    /// ```
    /// println!("filtering with {}", simdfilter::active_kernel().name());
    /// ```
    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({:?})", self.name())
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a kernel name was refused. Its message lists the kernels that are
/// available.
///
/// ```
/// use simdfilter::{use_kernel, Error};
///
/// match use_kernel("avx1024") {
///     Err(Error::UnknownKernel(name)) => assert_eq!(name, "avx1024"),
///     other => panic!("{:?}", other),
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No kernel of the project has this name.
    UnknownKernel(String),
    /// The kernel is compiled in, but this CPU or OS cannot run it.
    UnsupportedKernel(String),
    /// A kernel of the project that this build does not contain: it is for
    /// another architecture, or the build left it out
    /// (`SIMDFILTER_DISABLE_KERNELS`).
    KernelNotBuilt(String),
    /// [`kernel_choice`] was given an architecture or a CPU feature that
    /// dispatch does not know.
    UnknownCpu(String),
}

impl Error {
    fn from_code(rc: std::os::raw::c_int, name: &str) -> Error {
        let name = name.to_string();
        match rc {
            sys::SF_EUNSUPPORTED => Error::UnsupportedKernel(name),
            sys::SF_ENOTBUILT => Error::KernelNotBuilt(name),
            sys::SF_EINVAL => Error::UnknownCpu(name),
            _ => Error::UnknownKernel(name),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownKernel(name) => write!(f, "unknown kernel {:?}", name)?,
            Error::UnsupportedKernel(name) => {
                write!(f, "this CPU or OS cannot run the kernel {:?}", name)?
            }
            Error::KernelNotBuilt(name) => {
                write!(f, "the kernel {:?} is not in this build", name)?;
                if let Some(arch) = ffi::kernel_arch(name) {
                    write!(f, " (it is an {} kernel)", arch)?;
                }
            }
            Error::UnknownCpu(cpu) => {
                return write!(
                    f,
                    "an architecture or CPU feature dispatch does not know: {}",
                    cpu
                )
            }
        }
        let names: Vec<&str> = available_kernels().iter().map(|k| k.name()).collect();
        write!(f, "; available kernels: {}", names.join(", "))
    }
}

impl std::error::Error for Error {}

/// The kernels this CPU and OS can run, slowest first (the first is always
/// `scalar`).
///
/// ```
/// let kernels = simdfilter::available_kernels();
/// assert_eq!(kernels[0].name(), "scalar");
/// assert!(kernels.contains(&simdfilter::active_kernel()));
/// ```
pub fn available_kernels() -> Vec<Kernel> {
    ffi::compiled_kernels()
        .into_iter()
        .filter(|k| k.supported())
        .map(Kernel)
        .collect()
}

/// The names of the kernels compiled into this build, slowest first, whether
/// or not this CPU can run them.
///
/// ```
/// let compiled = simdfilter::compiled_kernels();
/// for k in simdfilter::available_kernels() {
///     assert!(compiled.contains(&k.name()));
/// }
/// ```
pub fn compiled_kernels() -> Vec<&'static str> {
    ffi::compiled_kernels()
        .into_iter()
        .map(KernelRef::name)
        .collect()
}

/// The process default kernel: the best one this CPU and OS support, unless
/// `SIMDFILTER_KERNEL` or [`use_kernel`] chose another. A `SIMDFILTER_KERNEL`
/// that names no runnable kernel leaves the best one ([`environment_error`]
/// says why).
///
/// ```
/// let k = simdfilter::active_kernel();
/// assert!(simdfilter::available_kernels().contains(&k));
/// ```
pub fn active_kernel() -> Kernel {
    Kernel(ffi::active_kernel())
}

/// Make the kernel called `name` the process default, for every thread.
///
/// To use a kernel for some calls only, without touching the default that
/// other threads see, pin it with [`Filter::kernel`](crate::Filter::kernel).
///
/// # Errors
/// [`Error::UnknownKernel`] for a name no kernel has,
/// [`Error::UnsupportedKernel`] for a kernel this CPU or OS cannot run, and
/// [`Error::KernelNotBuilt`] for one of another architecture; the default is
/// unchanged then. The error's message lists the available kernels.
///
/// ```
/// simdfilter::use_kernel("scalar").unwrap();
/// assert_eq!(simdfilter::active_kernel().name(), "scalar");
///
/// let err = simdfilter::use_kernel("mmx").unwrap_err();
/// assert!(err.to_string().starts_with("unknown kernel \"mmx\"; available kernels: scalar"));
/// ```
pub fn use_kernel(name: &str) -> Result<(), Error> {
    // The environment first, so that it never overrides this choice later.
    ffi::kernel_env_status();
    use_kernel_unchecked(name)
}

/// The CPU features dispatch detected and the OS enabled (`"sse4.1"`,
/// `"avx2"`, `"avx512f"`, ..., or `"sve"`), in the library's order.
///
/// ```
/// println!("{:?}", simdfilter::cpu_features());
/// ```
pub fn cpu_features() -> Vec<String> {
    ffi::cpu_features()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// Why `SIMDFILTER_KERNEL` was not applied, or `None` if it was (or is
/// unset or blank).
///
/// The library reads the variable once, at the first use of the process
/// default kernel (or at this call, whichever comes first). A value that
/// names no kernel this CPU and OS can run does not stop the program: the
/// default stays the best kernel, and this function returns the error
/// [`use_kernel`] would give for that name ([`Error::UnknownKernel`],
/// [`Error::UnsupportedKernel`] or [`Error::KernelNotBuilt`]; its message
/// lists the available kernels). A program that wants a bad value to be
/// fatal, as the Python package's import is, checks it at start:
///
/// ```
/// if let Some(e) = simdfilter::environment_error() {
///     eprintln!("SIMDFILTER_KERNEL ignored: {}", e);
/// }
/// ```
pub fn environment_error() -> Option<Error> {
    ffi::kernel_env_status().map(|(value, rc)| Error::from_code(rc, value.trim()))
}

fn use_kernel_unchecked(name: &str) -> Result<(), Error> {
    // Selecting first gives the precise error (sf_kernel_select tells a
    // kernel of another architecture from an unknown name).
    let kernel = Kernel::get(name)?;
    match ffi::use_kernel(kernel.name()) {
        sys::SF_OK => Ok(()),
        rc => Err(Error::from_code(rc, name)),
    }
}

/// The kernel dispatch's rule gives a described CPU: its default, or what a
/// `SIMDFILTER_KERNEL` value `requested` would give there. This is the rule the
/// library applies to the CPU it runs on; describing other CPUs shows what it
/// would do on them (every kernel of the project counts, built here or not).
///
/// `arch` is `"x86_64"` or `"aarch64"`; `features` are those
/// [`cpu_features`] prints, plus the traits it reports
/// (`"slow-compress-store"`: AMD's microcoded AVX-512 compress store).
///
/// # Errors
/// [`Error::UnknownCpu`] for an unknown architecture or feature; for a
/// requested name, the errors of [`use_kernel`] as they would be on that CPU.
///
/// ```
/// use simdfilter::{kernel_choice, Error};
///
/// let haswell = ["sse4.1", "popcnt", "avx", "avx2", "bmi1", "bmi2"];
/// assert_eq!(kernel_choice("x86_64", &haswell, None), Ok("avx2"));
/// let zen4 = [&haswell[..], &["avx512f", "avx512vl", "avx512bw", "avx512dq",
///                             "slow-compress-store"]].concat();
/// assert_eq!(kernel_choice("x86_64", &zen4, None), Ok("avx512_zen4"));
/// assert_eq!(kernel_choice("x86_64", &zen4, Some("avx512")), Ok("avx512"));
/// assert_eq!(kernel_choice("aarch64", &["sve"], None), Ok("sve"));
/// assert!(matches!(kernel_choice("x86_64", &haswell, Some("neon")),
///                  Err(Error::KernelNotBuilt(_))));
/// ```
pub fn kernel_choice(
    arch: &str,
    features: &[&str],
    requested: Option<&str>,
) -> Result<&'static str, Error> {
    ffi::kernel_choice(arch, &features.join(" "), requested).map_err(|rc| {
        let what = if rc == sys::SF_EINVAL {
            format!("{} {:?}", arch, features)
        } else {
            requested.unwrap_or("").to_string()
        };
        Error::from_code(rc, &what)
    })
}
