//! `store-admin`: the store administration API from the command line. See the crate README.

// Unsafe code is denied but for one attribute: the constructor below (`link_section`).
#![deny(unsafe_code)]

fn main() -> std::process::ExitCode {
    store_admin_cli::main()
}

/// Notes which standard streams are closed before Rust's runtime reopens them on `/dev/null` (it
/// does so before `main`, where a closed standard output, `>&-`, can no longer be told from
/// `>/dev/null`): a function the loader calls before the runtime starts, as C constructors are
/// called. Its code is safe; only placing it among the constructors is not.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
))]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_CLOSED_STREAMS: extern "C" fn() = note_closed_streams;

/// See the ELF version above.
#[cfg(any(target_os = "macos", target_os = "ios"))]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = "__DATA,__mod_init_func")]
static NOTE_CLOSED_STREAMS: extern "C" fn() = note_closed_streams;

#[cfg(unix)]
extern "C" fn note_closed_streams() {
    store_admin_cli::output::note_closed_streams_at_start();
}
