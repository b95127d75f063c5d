//! Shipping companies, rules and routes (read-only).

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use store_admin_client::types;

use super::{envelope, path_id};
use crate::app::{Shared, respond};
use crate::error::ApiError;
use crate::paging::{PageRequest, QueryPairs, list_envelope, paginate};

pub(super) async fn list_shipping_companies(State(state): State<Shared>) -> Response {
    let store = state.read();
    let data: Vec<Value> = store
        .shipping_companies
        .iter()
        .map(|c| c.to_json())
        .collect();
    respond::<types::ShippingCompanyList>(
        StatusCode::OK,
        envelope(StatusCode::OK, Value::Array(data)),
    )
}

pub(super) async fn get_shipping_company(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.shipping_companies.iter().find(|c| c.id == id) {
        Some(company) => respond::<types::ShippingCompanyResponse>(
            StatusCode::OK,
            envelope(StatusCode::OK, company.to_json()),
        ),
        None => ApiError::not_found().into_response(),
    }
}

pub(super) async fn get_shipping_rule(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.shipping_rules.iter().find(|r| r.id == id) {
        Some(rule) => respond::<types::ShippingRuleResponse>(
            StatusCode::OK,
            envelope(StatusCode::OK, rule.to_json()),
        ),
        None => ApiError::not_found().into_response(),
    }
}

pub(super) async fn list_shipping_routes(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let page = match PageRequest::from_query(&query) {
        Ok(page) => page,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    let summaries: Vec<Value> = store
        .shipping_routes
        .iter()
        .map(|route| {
            json!({
                "id": route["id"],
                "name": route["name"],
                "type": route["type"],
                "status": route["status"],
                "priority": route["priority"],
                "strategy": route["strategy"]["type"],
                "combinable": route.pointer("/branded/combinable").cloned().unwrap_or(Value::Bool(false)),
            })
        })
        .collect();
    let url = format!("{}/shipping/routes", state.base_url);
    let (data, pagination) = paginate(&summaries, page, &url, &query);
    respond::<types::ShippingRouteList>(StatusCode::OK, list_envelope(data, &pagination))
}

pub(super) async fn get_shipping_route(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store
        .shipping_routes
        .iter()
        .find(|r| r["id"].as_i64() == Some(id))
    {
        Some(route) => respond::<types::ShippingRouteResponse>(
            StatusCode::OK,
            envelope(StatusCode::OK, route.clone()),
        ),
        None => ApiError::not_found().into_response(),
    }
}
