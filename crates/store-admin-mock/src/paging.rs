//! Query parsing and page slicing.
//!
//! `page` starts at 1; `per_page` defaults to 15 and may not exceed 60, the documented maximum. The
//! service's own behaviour above 60 is unconfirmed; the mock is strict, like a validating server
//! (and as schemathesis' negative tests expect): a value above 60 is a 422 naming `per_page`. A
//! `page` past the last one answers an empty page.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{ApiError, FieldErrors, Text};

/// Default page size.
pub const DEFAULT_PER_PAGE: u64 = 15;
/// Largest page size; larger requests are a 422.
pub const MAX_PER_PAGE: u64 = 60;

/// The decoded query string: every pair, in order, with `name[]` and `name[N]` keys reduced to `name`.
#[derive(Debug, Clone, Default)]
pub struct QueryPairs {
    pairs: Vec<(String, String)>,
    raw: String,
}

impl QueryPairs {
    /// Parses a raw (percent-encoded) query string; `categories%5B%5D=a` and `categories[]=a` are equal.
    pub fn parse(raw: Option<&str>) -> Self {
        let raw = raw.unwrap_or_default().to_owned();
        let pairs = form_urlencoded::parse(raw.as_bytes())
            .map(|(key, value)| {
                // `name[]` and `name[0]` are `name`; `ship_to[country_id]` stays itself.
                let key = match key.rfind('[') {
                    Some(at)
                        if key.ends_with(']')
                            && key[at + 1..key.len() - 1]
                                .chars()
                                .all(|c| c.is_ascii_digit()) =>
                    {
                        key[..at].to_owned()
                    }
                    _ => key.into_owned(),
                };
                (key, value.into_owned())
            })
            .collect();
        Self { pairs, raw }
    }

    /// The last value of `name`, if any and not empty.
    pub fn one(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Every non-empty value of `name` (`name=a&name[]=b` and `name=a,b` give both).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect()
    }

    /// The last value of `name`, even empty: for typed parameters (integers, dates, booleans),
    /// where an empty value is not a value of the type and so a 422, not an absent parameter.
    pub fn typed(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, empty ones included.
    pub fn raw_values(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The raw pairs with `page` replaced, for pagination links.
    fn with_page(&self, page: u64) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        for (key, value) in form_urlencoded::parse(self.raw.as_bytes()) {
            if key != "page" {
                out.append_pair(&key, &value);
            }
        }
        out.append_pair("page", &page.to_string());
        out.finish()
    }
}

/// Page and page size of one list request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based page number.
    pub page: u64,
    /// Records per page, 1 to 60.
    pub per_page: u64,
}

impl PageRequest {
    /// Reads `page` and `per_page`: absent means 1 and 15; zero, negative, empty or non-numeric
    /// values, and a `per_page` above 60, are a 422 naming the field.
    pub fn from_query(query: &QueryPairs) -> Result<Self, ApiError> {
        let mut errors = FieldErrors::new();
        // Both must fit the document's int64 (`currentPage` and `perPage` are echoed back).
        let page = match query.typed("page") {
            None => 1,
            Some(raw) => match raw.trim().parse::<i64>() {
                Ok(n) if n >= 1 => n.unsigned_abs(),
                _ => {
                    errors.add(
                        "page",
                        Text::new(
                            "The page must be an integer of at least 1.",
                            "يجب أن يكون page عددًا صحيحًا لا يقل عن 1.",
                        ),
                    );
                    1
                }
            },
        };
        let per_page = match query.typed("per_page") {
            None => DEFAULT_PER_PAGE,
            Some(raw) => match raw.trim().parse::<u64>() {
                Ok(n) if n > MAX_PER_PAGE => {
                    errors.add(
                        "per_page",
                        Text::new(
                            format!("The per page may not be greater than {MAX_PER_PAGE}."),
                            format!("يجب ألا تكون قيمة per page أكبر من {MAX_PER_PAGE}."),
                        ),
                    );
                    DEFAULT_PER_PAGE
                }
                Ok(n) if n >= 1 => n,
                _ => {
                    errors.add(
                        "per_page",
                        Text::new(
                            "The per page must be an integer of at least 1.",
                            "يجب أن يكون per page عددًا صحيحًا لا يقل عن 1.",
                        ),
                    );
                    DEFAULT_PER_PAGE
                }
            },
        };
        errors.finish()?;
        Ok(Self { page, per_page })
    }
}

/// The `pagination` object of a list response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// Records in this page.
    pub count: u64,
    /// Records in all pages.
    pub total: u64,
    /// Page size.
    pub per_page: u64,
    /// This page's number.
    pub current_page: u64,
    /// Number of pages (at least 1).
    pub total_pages: u64,
    /// `{"next": url, "previous": url}`, each only when that page exists; `{}` on a single page.
    pub links: Map<String, Value>,
}

/// The positions of the page `request` asks for among `total` items, and the pagination object
/// (for lists that are not collected into a slice first).
pub fn page_window(
    total: usize,
    request: PageRequest,
    url: &str,
    query: &QueryPairs,
) -> (std::ops::Range<usize>, Pagination) {
    let start = usize::try_from((request.page - 1).saturating_mul(request.per_page))
        .unwrap_or(usize::MAX)
        .min(total);
    let end = start
        .saturating_add(usize::try_from(request.per_page).unwrap_or(usize::MAX))
        .min(total);
    let total = total as u64;
    let total_pages = total.div_ceil(request.per_page).max(1);
    let mut links = Map::new();
    if request.page < total_pages {
        links.insert(
            "next".into(),
            Value::from(format!("{url}?{}", query.with_page(request.page + 1))),
        );
    }
    if request.page > 1 {
        let previous = (request.page - 1).min(total_pages);
        links.insert(
            "previous".into(),
            Value::from(format!("{url}?{}", query.with_page(previous))),
        );
    }
    let pagination = Pagination {
        count: (end - start) as u64,
        total,
        per_page: request.per_page,
        current_page: request.page,
        total_pages,
        links,
    };
    (start..end, pagination)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_and_encoded_array_keys_are_the_same_parameter() {
        let query = QueryPairs::parse(Some(
            "categories%5B%5D=a&categories[]=b&categories=c,d&page=2",
        ));
        assert_eq!(query.all("categories"), vec!["a", "b", "c", "d"]);
        assert_eq!(query.one("page"), Some("2"));
    }

    #[test]
    fn per_page_above_sixty_zero_or_empty_is_rejected_on_its_field() {
        for query in [
            "per_page=61",
            "per_page=500",
            "per_page=0",
            "per_page=",
            "page=",
            "page=9223372036854775808",
        ] {
            let error = PageRequest::from_query(&QueryPairs::parse(Some(query))).unwrap_err();
            assert_eq!(error.status.as_u16(), 422, "{query}");
            let field = query.split('=').next().unwrap();
            assert!(error.fields.unwrap().contains_key(field), "{query}");
        }
        let largest = PageRequest::from_query(&QueryPairs::parse(Some("per_page=60"))).unwrap();
        assert_eq!(largest.per_page, 60);
    }

    #[test]
    fn links_hold_full_urls_and_are_empty_on_a_single_page() {
        let items: Vec<u32> = (0..31).collect();
        let query = QueryPairs::parse(Some("keyword=x&page=2"));
        let request = PageRequest {
            page: 2,
            per_page: 15,
        };
        let (window, pagination) = page_window(items.len(), request, "http://h/admin/v2/p", &query);
        assert_eq!(&items[window], (15..30).collect::<Vec<_>>());
        assert_eq!(pagination.total_pages, 3);
        assert_eq!(
            pagination.links["next"],
            "http://h/admin/v2/p?keyword=x&page=3"
        );
        assert_eq!(
            pagination.links["previous"],
            "http://h/admin/v2/p?keyword=x&page=1"
        );
        let (_, single) = page_window(
            3,
            PageRequest {
                page: 1,
                per_page: 15,
            },
            "u",
            &query,
        );
        assert!(single.links.is_empty());
    }
}
