//! How the mock reads YAML: one set of options for a document given at run time and for the
//! embedded one, which the build script (`build.rs`, which includes this file) turns into JSON.

/// How the mock reads YAML: only YAML 1.2's `true` and `false` are booleans (serde-saphyr also
/// reads YAML 1.1's `yes`, `no`, `on` and `off` as booleans unless told not to; a document holds
/// such words as text), with serde-saphyr's default limits on aliases and nesting.
pub fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! { strict_booleans: true }
}
