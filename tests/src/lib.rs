//! End-to-end tests of the workspace live in `tests/` of this package: they start the mock store on
//! 127.0.0.1 and drive it through the client crates over real HTTP.
#![forbid(unsafe_code)]
