//! `store-admin`: the store administration API from the command line. See the crate README.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    store_admin_cli::main()
}
