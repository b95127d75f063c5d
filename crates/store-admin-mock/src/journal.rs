//! The journal: the last requests the operations received, with their headers, so that a test can
//! read what a client put on the wire (`Accept-Language`, `Content-Language`, a header that must
//! not be there). [`crate::MockServer::journal`] and `GET /__admin/journal` read it.
//!
//! It keeps the last [`JOURNAL_CAPACITY`] requests. The `Authorization` header's value is never
//! kept (it is `[redacted]`), nor a body.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use axum::http::{HeaderMap, Method, Uri, header};
use serde::Serialize;

/// How many requests the journal keeps (the oldest go first).
pub const JOURNAL_CAPACITY: usize = 256;

/// One request an operation received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JournalEntry {
    /// The method, e.g. `POST`.
    pub method: String,
    /// The path and query, e.g. `/admin/v2/orders?page=2`.
    pub path: String,
    /// The operation it was routed to (its `operationId`).
    pub operation_id: String,
    /// The headers as received, in order, names in lower case; the `Authorization` value is
    /// `[redacted]`, a value that is not UTF-8 is read lossily.
    pub headers: Vec<(String, String)>,
}

impl JournalEntry {
    /// The first value of the header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The last requests (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct Journal {
    entries: Mutex<VecDeque<JournalEntry>>,
}

impl Journal {
    /// Records a request routed to `operation_id`.
    pub fn record(&self, method: &Method, uri: &Uri, headers: &HeaderMap, operation_id: &str) {
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let value = if name == header::AUTHORIZATION {
                    "[redacted]".to_owned()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name.as_str().to_owned(), value)
            })
            .collect();
        let entry = JournalEntry {
            method: method.as_str().to_owned(),
            path: uri
                .path_and_query()
                .map_or_else(|| uri.path().to_owned(), |p| p.as_str().to_owned()),
            operation_id: operation_id.to_owned(),
            headers,
        };
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= JOURNAL_CAPACITY {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    /// The requests kept, oldest first.
    pub fn entries(&self) -> Vec<JournalEntry> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.iter().cloned().collect()
    }

    /// Forgets every request.
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_keeps_the_last_requests_without_the_token() {
        let journal = Journal::default();
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, "Bearer secret".parse().unwrap());
        headers.insert(header::ACCEPT_LANGUAGE, "en".parse().unwrap());
        let uri: Uri = "/admin/v2/orders?page=2".parse().unwrap();
        for _ in 0..JOURNAL_CAPACITY + 3 {
            journal.record(&Method::GET, &uri, &headers, "list_orders");
        }
        let entries = journal.entries();
        assert_eq!(entries.len(), JOURNAL_CAPACITY);
        let entry = &entries[0];
        assert_eq!(entry.path, "/admin/v2/orders?page=2");
        assert_eq!(entry.header("Accept-Language"), Some("en"));
        assert_eq!(entry.header("authorization"), Some("[redacted]"));
        assert!(!format!("{entries:?}").contains("secret"));
        journal.clear();
        assert!(journal.entries().is_empty());
    }
}
