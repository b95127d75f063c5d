//! Every YAML read of the xtask: the document, its fixtures, reports and test documents.

/// Parses YAML (or JSON, a subset of it) as the document means it: only YAML 1.2's `true` and
/// `false` are booleans. serde-saphyr also reads YAML 1.1's `yes`, `no`, `on` and `off` as
/// booleans unless told not to, and the document holds such words as text (enum values,
/// examples).
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(text, serde_saphyr::options! { strict_booleans: true })
}

#[cfg(test)]
mod tests {
    #[test]
    fn yaml_1_1_words_stay_text_and_1_2_booleans_are_booleans() {
        let value: serde_json::Value =
            super::from_str("a: no\nb: on\nc: yes\nd: off\ne: true\nf: false\n").unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": "no", "b": "on", "c": "yes", "d": "off", "e": true, "f": false})
        );
    }
}
