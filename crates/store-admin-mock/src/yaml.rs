//! How the mock reads YAML, for a document given at run time and for the embedded one, which the
//! build script (`build.rs`, which includes this file) turns into JSON.

/// Reads YAML (or JSON, a subset of it) into a JSON value: only YAML 1.2's `true` and `false` are
/// booleans (serde-saphyr also reads YAML 1.1's `yes`, `no`, `on` and `off` as booleans unless
/// told not to; a document holds such words as text), with serde-saphyr's default limits on
/// aliases and nesting.
pub(crate) fn to_json(text: &str) -> Result<serde_json::Value, String> {
    serde_saphyr::from_str_with_options(text, serde_saphyr::options! { strict_booleans: true })
        .map_err(|e| e.to_string())
}
