//! Query parsing and page slicing.
//!
//! `page` starts at 1; `per_page` defaults to 15 and is clamped to 60 (the documented maximum: the
//! service's own behaviour above 60 is unconfirmed, so the mock answers with 60 per page and says so
//! in `pagination.perPage`). A `page` past the last one answers an empty page.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{ApiError, FieldErrors};

/// Default page size.
pub const DEFAULT_PER_PAGE: u64 = 15;
/// Largest page size; larger requests are clamped to it.
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
                let key = match key.find('[') {
                    Some(at) if key.ends_with(']') => key[..at].to_owned(),
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

    /// An integer parameter; 422 naming the field when it is not one.
    pub fn int(&self, name: &str, errors: &mut FieldErrors) -> Option<i64> {
        let value = self.one(name)?;
        match value.trim().parse() {
            Ok(n) => Some(n),
            Err(_) => {
                errors.add(name, format!("The {name} must be an integer."));
                None
            }
        }
    }

    /// Every value of an integer array parameter; 422 naming the field when one is not an integer.
    pub fn ints(&self, name: &str, errors: &mut FieldErrors) -> Vec<i64> {
        let mut out = Vec::new();
        for value in self.all(name) {
            match value.parse() {
                Ok(n) => out.push(n),
                Err(_) => errors.add(
                    format!("{name}.{}", out.len()),
                    format!("The {name} must be integers."),
                ),
            }
        }
        out
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
    /// Reads `page` and `per_page`: absent means 1 and 15; `per_page` above 60 becomes 60; zero,
    /// negative or non-numeric values are a 422.
    pub fn from_query(query: &QueryPairs) -> Result<Self, ApiError> {
        let mut errors = FieldErrors::new();
        let page = match query.one("page") {
            None => 1,
            Some(raw) => match raw.trim().parse::<u64>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    errors.add("page", "The page must be an integer of at least 1.");
                    1
                }
            },
        };
        let per_page = match query.one("per_page") {
            None => DEFAULT_PER_PAGE,
            Some(raw) => match raw.trim().parse::<u64>() {
                Ok(n) if n >= 1 => n.min(MAX_PER_PAGE),
                _ => {
                    errors.add("per_page", "The per page must be an integer of at least 1.");
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

/// Slices `items` for `request` and builds the pagination object; `url` is the full URL of the list
/// without its query.
pub fn paginate<T: Clone>(
    items: &[T],
    request: PageRequest,
    url: &str,
    query: &QueryPairs,
) -> (Vec<T>, Pagination) {
    let total = items.len() as u64;
    let total_pages = total.div_ceil(request.per_page).max(1);
    let start = (request.page - 1).saturating_mul(request.per_page);
    let page: Vec<T> = items
        .iter()
        .skip(usize::try_from(start).unwrap_or(usize::MAX))
        .take(usize::try_from(request.per_page).unwrap_or(usize::MAX))
        .cloned()
        .collect();
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
        count: page.len() as u64,
        total,
        per_page: request.per_page,
        current_page: request.page,
        total_pages,
        links,
    };
    (page, pagination)
}

/// `{"status":200,"success":true,"data":...,"pagination":...}`.
pub fn list_envelope(data: Vec<Value>, pagination: &Pagination) -> Value {
    json!({ "status": 200, "success": true, "data": data, "pagination": pagination })
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
    fn per_page_above_sixty_is_clamped_and_zero_is_rejected() {
        let clamped = PageRequest::from_query(&QueryPairs::parse(Some("per_page=500"))).unwrap();
        assert_eq!(clamped.per_page, 60);
        let error = PageRequest::from_query(&QueryPairs::parse(Some("per_page=0"))).unwrap_err();
        assert_eq!(error.status.as_u16(), 422);
    }

    #[test]
    fn links_hold_full_urls_and_are_empty_on_a_single_page() {
        let items: Vec<u32> = (0..31).collect();
        let query = QueryPairs::parse(Some("keyword=x&page=2"));
        let request = PageRequest {
            page: 2,
            per_page: 15,
        };
        let (page, pagination) = paginate(&items, request, "http://h/admin/v2/p", &query);
        assert_eq!(page, (15..30).collect::<Vec<_>>());
        assert_eq!(pagination.total_pages, 3);
        assert_eq!(
            pagination.links["next"],
            "http://h/admin/v2/p?keyword=x&page=3"
        );
        assert_eq!(
            pagination.links["previous"],
            "http://h/admin/v2/p?keyword=x&page=1"
        );
        let (_, single) = paginate(
            &items[..3],
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
