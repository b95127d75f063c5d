//! The language of the mock's error messages, as the service chooses it: by `Accept-Language`,
//! **Arabic** when the request does not ask (or asks only for languages it does not speak).
//!
//! Every message is a [`Text`] in both languages, rendered when the answer is made
//! ([`crate::ApiError::respond`]). What the service sends the same in every language stays so:
//! the 401s of its token guard (`The access token is invalid`, `The access token should have
//! access to one of those scopes: ...`: English in every documented example, whatever the
//! language) and message keys (`alert.invalid_fields`).

use std::borrow::Cow;

use axum::http::{HeaderMap, header};

/// A language the mock answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// Arabic (`ar`): the service's default.
    #[default]
    Arabic,
    /// English (`en`, `en-US`, ...).
    English,
}

impl Lang {
    /// The language a request asks for with its `Accept-Language` header(s): of the languages
    /// the mock speaks, the one with the highest quality (`q`, default 1; `q=0` refuses it),
    /// the first listed on a tie; a tag matches by its language (`en-US` is English), `*`
    /// matches the default. Arabic when nothing listed matches or the header is absent.
    pub fn of(headers: &HeaderMap) -> Lang {
        let mut best: Option<(f32, Lang)> = None;
        for value in headers.get_all(header::ACCEPT_LANGUAGE) {
            let Ok(value) = value.to_str() else {
                continue;
            };
            for item in value.split(',') {
                let Some((lang, q)) = Self::item(item) else {
                    continue;
                };
                if q > 0.0 && best.is_none_or(|(best_q, _)| q > best_q) {
                    best = Some((q, lang));
                }
            }
        }
        best.map_or_else(Lang::default, |(_, lang)| lang)
    }

    /// One item of `Accept-Language` (`en-US;q=0.8`): the language it names, if the mock speaks
    /// it, and its quality. An item with a malformed quality is ignored.
    fn item(item: &str) -> Option<(Lang, f32)> {
        let mut parts = item.split(';');
        let tag = parts.next()?.trim();
        let mut q = 1.0_f32;
        for parameter in parts {
            let (name, value) = parameter.split_once('=')?;
            if name.trim().eq_ignore_ascii_case("q") {
                q = value
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))?;
            }
        }
        let primary = tag.split('-').next().unwrap_or(tag);
        let lang = if primary.eq_ignore_ascii_case("ar") || primary == "*" {
            Lang::Arabic
        } else if primary.eq_ignore_ascii_case("en") {
            Lang::English
        } else {
            return None;
        };
        Some((lang, q))
    }
}

/// A message in Arabic and English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    en: Cow<'static, str>,
    ar: Cow<'static, str>,
}

impl Text {
    /// The message in English (`en`) and in Arabic (`ar`).
    pub fn new(en: impl Into<Cow<'static, str>>, ar: impl Into<Cow<'static, str>>) -> Self {
        Text {
            en: en.into(),
            ar: ar.into(),
        }
    }

    /// A message the service sends the same in every language (a key such as
    /// `alert.invalid_fields`, or its token guard's English).
    pub fn same(text: impl Into<Cow<'static, str>>) -> Self {
        let text = text.into();
        Text {
            en: text.clone(),
            ar: text,
        }
    }

    /// The message in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Arabic => &self.ar,
            Lang::English => &self.en,
        }
    }

    /// The English message.
    pub fn en(&self) -> &str {
        &self.en
    }

    /// The Arabic message.
    pub fn ar(&self) -> &str {
        &self.ar
    }
}

impl std::fmt::Display for Text {
    /// The English message (logs and `Display` of errors are for the people who run the mock).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(values: &[&str]) -> Lang {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT_LANGUAGE, value.parse().unwrap());
        }
        Lang::of(&headers)
    }

    #[test]
    fn accept_language_chooses_as_the_service_does() {
        let cases: &[(&[&str], Lang)] = &[
            (&[], Lang::Arabic),
            (&["en"], Lang::English),
            (&["EN"], Lang::English),
            (&["en-US"], Lang::English),
            (&["en-GB,en;q=0.9"], Lang::English),
            (&["ar"], Lang::Arabic),
            (&["ar-SA"], Lang::Arabic),
            (&["fr"], Lang::Arabic),
            (&["fr, en;q=0.5"], Lang::English),
            (&["*"], Lang::Arabic),
            (&["ar;q=0.4, en;q=0.8"], Lang::English),
            (&["en;q=0.4, ar;q=0.8"], Lang::Arabic),
            (&["en;q=0.8, ar;q=0.8"], Lang::English),
            (&["en;q=0"], Lang::Arabic),
            (&["ar;q=0, en"], Lang::English),
            (&["en;q=2"], Lang::Arabic),
            (&["en;q=abc"], Lang::Arabic),
            (&["en;Q=0.5"], Lang::English),
            (&[" en-us ; q=0.7 "], Lang::English),
            (&["", ","], Lang::Arabic),
            (&["fr", "en"], Lang::English),
            (&["english"], Lang::Arabic),
        ];
        for (values, expected) in cases {
            assert_eq!(lang(values), *expected, "{values:?}");
        }
    }

    #[test]
    fn a_text_has_both_languages() {
        let text = Text::new("The name field is required.", "حقل name مطلوب.");
        assert_eq!(text.get(Lang::English), "The name field is required.");
        assert_eq!(text.get(Lang::Arabic), "حقل name مطلوب.");
        assert_eq!(text.to_string(), "The name field is required.");
        let key = Text::same("alert.invalid_fields");
        assert_eq!(key.get(Lang::Arabic), key.get(Lang::English));
    }
}
