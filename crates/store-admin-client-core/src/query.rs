//! The query string of an operation's URL, written into one buffer.
//!
//! progenitor adds each query parameter with its own `RequestBuilder::query` call, and each call
//! reopens the URL's query, appends to it and, for an absent parameter, takes the `?` away
//! again: seven parameters of a list cost seven rounds through the URL. `cargo xtask generate`
//! rewrites those calls into one [`Query`] whose text is appended to the URL once, before reqwest
//! parses it. The encoding is the same (`serde_urlencoded` over `form_urlencoded`, through
//! progenitor's `QueryParam`, which is what `RequestBuilder::query` runs), so the bytes sent are
//! the same.

use serde::Serialize;

/// The query parameters of one request, encoded as `application/x-www-form-urlencoded`.
pub struct Query {
    encoded: form_urlencoded::Serializer<'static, String>,
}

impl Default for Query {
    fn default() -> Self {
        Self {
            encoded: form_urlencoded::Serializer::new(String::new()),
        }
    }
}

impl Query {
    /// Appends one parameter (progenitor's `QueryParam`: absent is nothing, a list repeats the
    /// name). The error says why the value cannot be a query parameter.
    pub fn push<T: Serialize + ?Sized>(&mut self, param: &T) -> Result<(), String> {
        param
            .serialize(serde_urlencoded::Serializer::new(&mut self.encoded))
            .map_err(|e| format!("a query parameter cannot be encoded: {e}"))?;
        Ok(())
    }

    /// `url` with this query (`url?a=1&b=2`), or `url` unchanged when no parameter was given.
    pub fn finish(mut self, mut url: String) -> String {
        let query = self.encoded.finish();
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query);
        }
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use progenitor_client::QueryParam;

    /// Named list parameters (`None`: absent).
    type Lists<'a> = [(&'a str, Option<Vec<&'a str>>)];

    /// The URL reqwest builds with one `RequestBuilder::query` call per parameter, as
    /// progenitor's code does.
    fn through_reqwest(params: &Lists<'_>, scalar: Option<u64>) -> String {
        let client = reqwest::Client::new();
        let mut builder = client.get("http://h.test/admin/v2/products");
        for (name, value) in params {
            builder = builder.query(&QueryParam::new(name, value));
        }
        builder = builder.query(&QueryParam::new("page", &scalar));
        builder.build().expect("request").url().to_string()
    }

    fn through_query(params: &Lists<'_>, scalar: Option<u64>) -> String {
        let mut query = Query::default();
        for (name, value) in params {
            query.push(&QueryParam::new(name, value)).expect("encoded");
        }
        query
            .push(&QueryParam::new("page", &scalar))
            .expect("encoded");
        let url = query.finish("http://h.test/admin/v2/products".to_owned());
        reqwest::Url::parse(&url).expect("a URL").to_string()
    }

    #[test]
    fn the_url_is_the_one_reqwest_builds_parameter_by_parameter() {
        let cases: [(&Lists<'_>, Option<u64>); 5] = [
            (&[], None),
            (&[("keyword", None)], None),
            (&[("keyword", None)], Some(2)),
            (
                &[
                    ("keyword", Some(vec!["a b&c=d/é?#"])),
                    ("tags[]", Some(vec!["x", "y+z"])),
                    ("brands[]", None),
                ],
                Some(60),
            ),
            (&[("empty[]", Some(vec![]))], None),
        ];
        for (params, scalar) in cases {
            assert_eq!(
                through_query(params, scalar),
                through_reqwest(params, scalar),
                "{params:?} {scalar:?}"
            );
        }
    }

    #[test]
    fn a_value_that_is_not_a_parameter_is_an_error_not_a_panic() {
        let nested = serde_json::json!({ "a": { "b": 1 } });
        let mut query = Query::default();
        let error = query
            .push(&QueryParam::new("filter", &nested))
            .expect_err("a nested object is not a query parameter");
        assert!(
            error.starts_with("a query parameter cannot be encoded"),
            "{error}"
        );
    }
}
