//! Finds the operation of a request from the document's path templates: static segments win
//! over parameters, left to right (`/orders/statuses` before `/orders/{order_id}`); two templates
//! that differ only in their parameters' names (`/products/images/{image}` and
//! `/products/images/{image-id}`) are one route. Segments are percent-decoded; one that is not
//! UTF-8 cannot name anything.

use std::collections::HashMap;

use axum::http::Method;

use super::infer::key_of;
use crate::document::{Operation, Segment};

struct Route {
    /// `None` for a parameter.
    segments: Vec<Option<Vec<u8>>>,
    /// Operations by method: index in the document's operations.
    methods: Vec<(Method, usize)>,
}

/// The outcome of routing a request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// The operation, and its path parameters by name.
    Operation {
        index: usize,
        params: Vec<(String, String)>,
    },
    /// The path exists, not with this method: the methods it has.
    MethodNotAllowed(Vec<Method>),
    Nothing,
}

/// Every route of the document.
pub(crate) struct Router {
    by_length: HashMap<usize, Vec<Route>>,
    names: Vec<Vec<String>>,
}

fn decode(segment: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(segment).collect()
}

impl Router {
    pub fn new(operations: &[Operation]) -> Self {
        let mut routes: Vec<(String, Route)> = Vec::new();
        for (index, op) in operations.iter().enumerate() {
            let key = key_of(&op.segments);
            let position = match routes.iter().position(|(k, _)| *k == key) {
                Some(position) => position,
                None => {
                    let segments = op
                        .segments
                        .iter()
                        .map(|s| match s {
                            Segment::Static(text) => Some(decode(text)),
                            Segment::Param(_) => None,
                        })
                        .collect();
                    routes.push((
                        key,
                        Route {
                            segments,
                            methods: Vec::new(),
                        },
                    ));
                    routes.len() - 1
                }
            };
            let route = &mut routes[position].1;
            if !route.methods.iter().any(|(m, _)| *m == op.method) {
                route.methods.push((op.method.clone(), index));
            }
        }
        let mut by_length: HashMap<usize, Vec<Route>> = HashMap::new();
        for (_, route) in routes {
            by_length
                .entry(route.segments.len())
                .or_default()
                .push(route);
        }
        let names = operations
            .iter()
            .map(|op| op.path_params().map(str::to_owned).collect())
            .collect();
        Self { by_length, names }
    }

    /// Routes `method` and `path` (below the API prefix, still percent-encoded).
    pub fn find(&self, method: &Method, path: &str) -> Found {
        let segments: Vec<Vec<u8>> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(decode)
            .collect();
        let Some(candidates) = self.by_length.get(&segments.len()) else {
            return Found::Nothing;
        };
        let mut best: Option<(&Route, Vec<bool>)> = None;
        for route in candidates {
            let fits = route
                .segments
                .iter()
                .zip(&segments)
                .all(|(template, segment)| template.as_ref().is_none_or(|t| t == segment));
            if !fits {
                continue;
            }
            let rank: Vec<bool> = route.segments.iter().map(Option::is_some).collect();
            if best.as_ref().is_none_or(|(_, best_rank)| rank > *best_rank) {
                best = Some((route, rank));
            }
        }
        let Some((route, _)) = best else {
            return Found::Nothing;
        };
        let Some(index) = route
            .methods
            .iter()
            .find(|(m, _)| m == method || (*method == Method::HEAD && *m == Method::GET))
            .map(|(_, index)| *index)
        else {
            return Found::MethodNotAllowed(route.methods.iter().map(|(m, _)| m.clone()).collect());
        };
        let mut params = Vec::new();
        let names = self.names.get(index).cloned().unwrap_or_default();
        let mut names = names.into_iter();
        for (template, segment) in route.segments.iter().zip(segments) {
            if template.is_none() {
                let Ok(value) = String::from_utf8(segment) else {
                    // Not text: no record can be named by it.
                    return Found::Nothing;
                };
                params.push((names.next().unwrap_or_default(), value));
            }
        }
        Found::Operation { index, params }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    #[test]
    fn static_segments_win_and_parameters_are_decoded() {
        let doc = Document::embedded().unwrap();
        let router = Router::new(&doc.operations);
        let id_of = |found: Found| match found {
            Found::Operation { index, params } => (doc.operations[index].id.clone(), params),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            id_of(router.find(&Method::GET, "/orders/statuses")).0,
            "list_order_statuses"
        );
        let (id, params) = id_of(router.find(&Method::GET, "/orders/12%20"));
        assert_eq!(id, "get_order");
        assert_eq!(params, [("order_id".to_owned(), "12 ".to_owned())]);
        assert_eq!(
            id_of(router.find(&Method::GET, "/shipping/companies/")).0,
            "list_shipping_companies"
        );
        assert_eq!(
            router.find(&Method::DELETE, "/orders/statuses"),
            Found::MethodNotAllowed(vec![Method::GET, Method::POST])
        );
        assert_eq!(router.find(&Method::GET, "/orders/%FF%FE"), Found::Nothing);
        assert_eq!(router.find(&Method::GET, "/nothing/here"), Found::Nothing);
    }
}
