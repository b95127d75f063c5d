//! The language the service answers in, and the language of request bodies.
//!
//! The service answers in **Arabic** unless it is asked otherwise: `Accept-Language` selects the
//! language of its messages (validation errors above all) and of translated content, and
//! `Content-Language` says which language a request body's translatable fields are in. A
//! [`Language`] is a checked language tag (`ar`, `en`, `en-US`: the codes of the languages
//! endpoint), so it can be put in a header as it is: a wrong value is a [`LanguageError`] when it
//! is parsed, never a panic and never a header of its own (`"en\r\nX-Injected: 1"` is refused).
//!
//! Where it is set, most specific first:
//!
//! - on one request built by hand for [`StoreAdmin::send_raw`](crate::StoreAdmin::send_raw): an
//!   `Accept-Language` or `Content-Language` header already on the request is kept;
//! - for the calls made through a view of the client,
//!   [`StoreAdmin::in_language`](crate::StoreAdmin::in_language) (a per-call override: the view
//!   shares the client's connections, tokens, rate limiter and retry budget);
//! - for every call of a client, [`StoreAdminBuilder::with_language`](crate::StoreAdminBuilder::with_language).
//!
//! With none of them, no language header is sent and the service answers in its default,
//! Arabic. With one, every request carries `Accept-Language: <tag>`, and every request with a
//! body also `Content-Language: <tag>` (one language for what is read and what is written; a
//! body in another language goes through a view in that language).
//!
//! ```
//! use store_admin::Language;
//!
//! let tag: Language = "en-us".parse().unwrap();
//! assert_eq!(tag.as_str(), "en-US"); // the usual case: language lower, region upper
//! assert_eq!(tag.primary(), "en");
//! assert_eq!("AR".parse::<Language>().unwrap(), Language::ARABIC);
//! assert!("en\r\nX-Injected: 1".parse::<Language>().is_err());
//! assert!("en_US".parse::<Language>().is_err()); // the error says: en-US
//! ```

use std::fmt;
use std::str::FromStr;

use reqwest::header::{ACCEPT_LANGUAGE, CONTENT_LANGUAGE, HeaderMap, HeaderValue};

/// The longest tag accepted (RFC 5646 asks implementations to take at least 35 characters).
const MAX_LEN: usize = 35;

/// A language tag, checked and in its usual case (`ar`, `en`, `en-US`, `zh-Hant-TW`), ready to go
/// in `Accept-Language` and `Content-Language`. See the [module documentation](self).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Language(HeaderValue);

impl Language {
    /// Arabic (`ar`), the service's default.
    pub const ARABIC: Language = Language(HeaderValue::from_static("ar"));
    /// English (`en`).
    pub const ENGLISH: Language = Language(HeaderValue::from_static("en"));

    /// Checks `tag`, a BCP 47 language tag: a language of 2 to 8 letters, then subtags of 1 to
    /// 8 letters or digits, separated by `-`, 35 characters at most. Case does not matter; the
    /// tag is kept in the usual case (language lower case, a 2-letter region upper case, a
    /// 4-letter script title case).
    pub fn parse(tag: &str) -> Result<Language, LanguageError> {
        let error = |reason: &'static str| LanguageError::new(tag, reason);
        if tag.is_empty() {
            return Err(error("it is empty"));
        }
        if tag.len() > MAX_LEN {
            return Err(error("it is longer than 35 characters"));
        }
        if tag.contains('_') {
            return Err(error("subtags are separated by `-`, as in en-US"));
        }
        let mut canonical = String::with_capacity(tag.len());
        let mut after_singleton = false;
        for (index, subtag) in tag.split('-').enumerate() {
            if subtag.is_empty() {
                return Err(error("it has an empty subtag"));
            }
            if subtag.len() > 8 || !subtag.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(error("subtags are 1 to 8 ASCII letters or digits"));
            }
            if index == 0 {
                if subtag.len() < 2 || !subtag.bytes().all(|b| b.is_ascii_alphabetic()) {
                    return Err(error(
                        "it starts with a language of 2 to 8 letters (ar, en)",
                    ));
                }
                canonical.push_str(&subtag.to_ascii_lowercase());
                continue;
            }
            canonical.push('-');
            let letters = subtag.bytes().all(|b| b.is_ascii_alphabetic());
            if subtag.len() == 1 {
                // An extension or private use (`-u-`, `-x-`): what follows is lower case.
                after_singleton = true;
            }
            match subtag.len() {
                2 if letters && !after_singleton => {
                    canonical.push_str(&subtag.to_ascii_uppercase())
                }
                4 if letters && !after_singleton => {
                    let (first, rest) = subtag.split_at(1);
                    canonical.push_str(&first.to_ascii_uppercase());
                    canonical.push_str(&rest.to_ascii_lowercase());
                }
                _ => canonical.push_str(&subtag.to_ascii_lowercase()),
            }
        }
        // Only ASCII letters, digits and `-` are left: always a valid header value.
        HeaderValue::from_str(&canonical)
            .map(Language)
            .map_err(|_| error("it is not a header value"))
    }

    /// The tag, e.g. `en-US`.
    pub fn as_str(&self) -> &str {
        // Built from ASCII letters, digits and `-` only.
        self.0.to_str().unwrap_or_default()
    }

    /// The language without region or script: `en` of `en-US`.
    pub fn primary(&self) -> &str {
        let tag = self.as_str();
        tag.split('-').next().unwrap_or(tag)
    }

    /// The header value.
    pub fn header_value(&self) -> &HeaderValue {
        &self.0
    }

    /// Sets `Accept-Language`, and `Content-Language` when the request has a body, unless the
    /// request has its own.
    pub(crate) fn apply(&self, headers: &mut HeaderMap, has_body: bool) {
        if !headers.contains_key(ACCEPT_LANGUAGE) {
            headers.insert(ACCEPT_LANGUAGE, self.0.clone());
        }
        if has_body && !headers.contains_key(CONTENT_LANGUAGE) {
            headers.insert(CONTENT_LANGUAGE, self.0.clone());
        }
    }
}

impl fmt::Debug for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Language").field(&self.as_str()).finish()
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Language {
    type Err = LanguageError;

    fn from_str(tag: &str) -> Result<Self, Self::Err> {
        Language::parse(tag)
    }
}

impl TryFrom<&str> for Language {
    type Error = LanguageError;

    fn try_from(tag: &str) -> Result<Self, Self::Error> {
        Language::parse(tag)
    }
}

impl TryFrom<String> for Language {
    type Error = LanguageError;

    fn try_from(tag: String) -> Result<Self, Self::Error> {
        Language::parse(&tag)
    }
}

impl serde::Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let tag = String::deserialize(deserializer)?;
        Language::parse(&tag).map_err(serde::de::Error::custom)
    }
}

/// Why a text is not a [`Language`]. The text is quoted escaped (control characters shown as
/// `\r`, `\n`...) and cut to 40 characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tag} is not a language tag such as ar, en or en-US: {reason}")]
pub struct LanguageError {
    tag: String,
    reason: &'static str,
}

impl LanguageError {
    fn new(tag: &str, reason: &'static str) -> Self {
        let shown: String = tag.chars().take(40).collect();
        let cut = if shown.len() < tag.len() { "..." } else { "" };
        LanguageError {
            tag: format!("{shown:?}{cut}"),
            reason,
        }
    }

    /// Why the text was refused.
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

impl From<LanguageError> for crate::Error {
    fn from(error: LanguageError) -> Self {
        crate::Error::InvalidRequest(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_checked_and_kept_in_their_usual_case() {
        let cases: &[(&str, Option<&str>)] = &[
            ("ar", Some("ar")),
            ("en", Some("en")),
            ("EN", Some("en")),
            ("en-us", Some("en-US")),
            ("en-US", Some("en-US")),
            ("zh-hant-tw", Some("zh-Hant-TW")),
            ("es-419", Some("es-419")),
            ("de-CH-1996", Some("de-CH-1996")),
            ("en-x-ab", Some("en-x-ab")),
            ("fil", Some("fil")),
            ("", None),
            ("e", None),
            ("1en", None),
            ("en-", None),
            ("-en", None),
            ("en--US", None),
            ("en_US", None),
            ("en US", None),
            ("en,ar", None),
            ("en;q=0.5", None),
            ("*", None),
            ("en-abcdefghi", None),
            ("en\r\nX-Injected: 1", None),
            ("en\n", None),
            ("en\0", None),
            ("ع", None),
            ("en-ü", None),
        ];
        for (text, expected) in cases {
            let parsed = Language::parse(text);
            assert_eq!(
                parsed.as_ref().ok().map(Language::as_str),
                *expected,
                "{text:?}: {parsed:?}"
            );
        }
        let long = format!("en-{}", ["abcdefgh"; 4].join("-"));
        assert!(long.len() > MAX_LEN);
        assert!(Language::parse(&long).is_err());
    }

    #[test]
    fn an_error_shows_the_text_escaped_and_short() {
        let error = Language::parse("en\r\nX-Injected: 1")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(r#""en\r\nX-Injected: 1" is not a language tag"#),
            "{error}"
        );
        assert!(!error.contains('\r') && !error.contains('\n'), "{error}");
        let error = Language::parse(&"x".repeat(1000)).unwrap_err().to_string();
        assert!(error.len() < 200, "{error}");
        let error = Language::parse("en_US").unwrap_err().to_string();
        assert!(error.contains("en-US"), "{error}");
    }

    #[test]
    fn the_constants_are_valid_tags() {
        assert_eq!(Language::parse("ar").unwrap(), Language::ARABIC);
        assert_eq!(Language::parse("En").unwrap(), Language::ENGLISH);
        assert_eq!(Language::ENGLISH.to_string(), "en");
        assert_eq!("pt-BR".parse::<Language>().unwrap().primary(), "pt");
    }

    #[test]
    fn headers_are_set_unless_the_request_has_its_own() {
        let english = Language::ENGLISH;
        let mut headers = HeaderMap::new();
        english.apply(&mut headers, false);
        assert_eq!(headers.get(ACCEPT_LANGUAGE).unwrap(), "en");
        assert!(
            headers.get(CONTENT_LANGUAGE).is_none(),
            "no body, no Content-Language"
        );

        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_LANGUAGE, HeaderValue::from_static("fr"));
        english.apply(&mut headers, true);
        assert_eq!(headers.get(ACCEPT_LANGUAGE).unwrap(), "fr");
        assert_eq!(headers.get(CONTENT_LANGUAGE).unwrap(), "en");
        assert_eq!(headers.len(), 2);
    }

    #[test]
    fn it_reads_and_writes_as_a_string() {
        let tag: Language = serde_json::from_str("\"en-gb\"").unwrap();
        assert_eq!(serde_json::to_string(&tag).unwrap(), "\"en-GB\"");
        assert!(serde_json::from_str::<Language>("\"en gb\"").is_err());
    }
}
