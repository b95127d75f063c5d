//! Orders, order statuses and reservations.

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde_json::Value;
use store_admin_client::types;

use super::{envelope, path_id};
use crate::app::{Shared, json_bytes_response, respond};
use crate::error::{ApiError, FieldErrors};
use crate::model::Order;
use crate::paging::{PageRequest, QueryPairs, paginate, rendered_list_body};

fn date(
    query: &QueryPairs,
    name: &str,
    required: bool,
    errors: &mut FieldErrors,
) -> Option<NaiveDate> {
    match query.typed(name) {
        None => {
            if required {
                errors.required(name);
            }
            None
        }
        Some(raw) => match NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d") {
            Ok(day) => Some(day),
            Err(_) => {
                errors.add(name, format!("The {name} does not match the format Y-m-d."));
                None
            }
        },
    }
}

fn flag(query: &QueryPairs, name: &str, errors: &mut FieldErrors) -> Option<bool> {
    match query.typed(name)? {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => {
            errors.add(name, format!("The {name} field must be true or false."));
            None
        }
    }
}

pub(super) async fn list_reservations(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let mut errors = FieldErrors::new();
    let start = date(&query, "start", true, &mut errors);
    let end = date(&query, "end", true, &mut errors);
    if let (Some(start), Some(end)) = (start, end)
        && end < start
    {
        errors.add("end", "The end must be a date after or equal to start.");
    }
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let (Some(start), Some(end)) = (start, end) else {
        return ApiError::field("start", "The start field is required.").into_response();
    };
    let store = state.read();
    let data: Vec<Value> = store
        .reservations
        .iter()
        .filter(|r| {
            NaiveDate::parse_from_str(r.day(), "%Y-%m-%d")
                .is_ok_and(|day| day >= start && day <= end)
        })
        .map(|r| r.to_json())
        .collect();
    respond::<types::ReservationList>(StatusCode::OK, envelope(StatusCode::OK, Value::Array(data)))
}

pub(super) async fn list_order_statuses(State(state): State<Shared>) -> Response {
    let store = state.read();
    let data: Vec<Value> = store.order_statuses.iter().map(|s| s.to_json()).collect();
    respond::<types::OrderStatusList>(StatusCode::OK, envelope(StatusCode::OK, Value::Array(data)))
}

pub(super) async fn get_order(State(state): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.orders.iter().find(|o| o.id == id) {
        Some(order) => {
            let body = format!(
                r#"{{"status":200,"success":true,"data":{}}}"#,
                order.rendered
            );
            json_bytes_response(StatusCode::OK, body)
        }
        None => ApiError::not_found().into_response(),
    }
}

/// The order filters of the document, parsed.
struct OrderFilter<'q> {
    keyword: Option<String>,
    payment_method: Option<&'q str>,
    statuses: Vec<i64>,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    country: Option<&'q str>,
    city: Option<&'q str>,
    product: Option<String>,
    branches: Vec<i64>,
    tags: Vec<i64>,
    reference_id: Option<i64>,
    coupon: Option<&'q str>,
    customer_id: Option<i64>,
    shipping_apps: Vec<i64>,
    source: Option<&'q str>,
    unsent_to_accounting: Option<bool>,
    unread: Option<bool>,
    employees: Vec<i64>,
    channel: Option<&'q str>,
    created_by: Option<i64>,
    sort: (String, bool),
}

fn parse_filter(query: &QueryPairs) -> Result<OrderFilter<'_>, ApiError> {
    let mut errors = FieldErrors::new();
    let sort = match query.one("sort_by") {
        None => ("created_at".to_owned(), false),
        Some(raw) => match raw.rsplit_once('-') {
            Some((attr, dir @ ("asc" | "desc")))
                if ["id", "reference_id", "total", "created_at"].contains(&attr) =>
            {
                (attr.to_owned(), dir == "asc")
            }
            _ => {
                errors.add(
                    "sort_by",
                    "The sort by must be <attribute>-asc or <attribute>-desc.",
                );
                ("created_at".to_owned(), false)
            }
        },
    };
    let filter = OrderFilter {
        keyword: query.one("keyword").map(str::to_lowercase),
        payment_method: query.one("payment_method"),
        statuses: query.ints("status", &mut errors),
        from: date(query, "from_date", false, &mut errors),
        to: date(query, "to_date", false, &mut errors),
        country: query.one("country"),
        city: query.one("city"),
        product: query.one("product").map(str::to_lowercase),
        branches: query.ints("branch", &mut errors),
        tags: query.ints("tags", &mut errors),
        reference_id: query.int("reference_id", &mut errors),
        coupon: query.one("coupon"),
        customer_id: query.int("customer_id", &mut errors),
        shipping_apps: query.ints("shipping_app_id", &mut errors),
        source: query.one("source"),
        unsent_to_accounting: flag(query, "unsent_to_accounting", &mut errors),
        unread: flag(query, "unread", &mut errors),
        employees: query.ints("assign_employee", &mut errors),
        channel: query.one("selling_channel"),
        created_by: query.int("created_by", &mut errors),
        sort,
    };
    let _ = flag(query, "expanded", &mut errors);
    errors.finish()?;
    Ok(filter)
}

pub(super) async fn list_orders(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let page = match PageRequest::from_query(&query) {
        Ok(page) => page,
        Err(error) => return error.into_response(),
    };
    let filter = match parse_filter(&query) {
        Ok(filter) => filter,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    // Only what a filter in use needs is computed per order.
    let matches = |order: &Order| -> bool {
        let day = || {
            NaiveDate::parse_from_str(order.created_at.get(..10).unwrap_or_default(), "%Y-%m-%d")
                .ok()
        };
        let shipments = || store.shipments.iter().filter(|s| s.order_id == order.id);
        filter.keyword.as_ref().is_none_or(|k| {
            order.reference_id.to_string().contains(k.as_str())
                || order
                    .items
                    .iter()
                    .any(|i| i.name.to_lowercase().contains(k.as_str()))
                || order.tags.iter().any(|t| {
                    store
                        .tags
                        .iter()
                        .any(|n| n.id == *t && n.name.to_lowercase() == *k)
                })
                || shipments().any(|s| {
                    s.shipping_number.to_string().trim_matches('"') == k
                        || s.tracking_number.to_string().trim_matches('"') == k
                })
        }) && filter
            .payment_method
            .is_none_or(|m| order.payment_method == m)
            && (filter.statuses.is_empty()
                || filter.statuses.iter().any(|id| {
                    *id == order.status_id
                        || store
                            .status(order.status_id)
                            .is_some_and(|s| s.original.0 == *id)
                }))
            && filter
                .from
                .is_none_or(|from| day().is_some_and(|d| d >= from))
            && filter.to.is_none_or(|to| day().is_some_and(|d| d <= to))
            && filter
                .country
                .is_none_or(|c| order.country.eq_ignore_ascii_case(c))
            && filter
                .city
                .is_none_or(|c| order.city.eq_ignore_ascii_case(c))
            && filter.product.as_ref().is_none_or(|p| {
                order
                    .items
                    .iter()
                    .any(|i| i.name.to_lowercase().contains(p.as_str()))
            })
            && (filter.branches.is_empty() || filter.branches.contains(&order.branch_id))
            && (filter.tags.is_empty() || order.tags.iter().any(|t| filter.tags.contains(t)))
            && filter.reference_id.is_none_or(|r| order.reference_id == r)
            && filter.coupon.is_none_or(|c| {
                order
                    .coupon_code
                    .as_deref()
                    .is_some_and(|o| o.eq_ignore_ascii_case(c))
            })
            && filter.customer_id.is_none_or(|c| order.customer_id == c)
            && (filter.shipping_apps.is_empty()
                || order.shipping_company_id.is_some_and(|company| {
                    store.shipping_companies.iter().any(|c| {
                        c.id == company
                            && c.app_id
                                .parse::<i64>()
                                .is_ok_and(|app| filter.shipping_apps.contains(&app))
                    })
                }))
            && filter.source.is_none_or(|s| order.source == s)
            && filter
                .unsent_to_accounting
                .is_none_or(|unsent| !unsent || !order.sent_to_accounting)
            && filter.unread.is_none_or(|unread| !unread || order.unread)
            && (filter.employees.is_empty()
                || order
                    .employee_ids
                    .iter()
                    .any(|e| filter.employees.contains(e)))
            && filter.channel.is_none_or(|c| order.channel == c)
            && filter
                .created_by
                .is_none_or(|c| order.created_by == Some(c))
    };
    let mut orders: Vec<&Order> = store.orders.iter().filter(|o| matches(o)).collect();
    let (attr, ascending) = &filter.sort;
    orders.sort_by(|a, b| {
        let ordering = match attr.as_str() {
            "id" => a.id.cmp(&b.id),
            "reference_id" => a.reference_id.cmp(&b.reference_id),
            "total" => a.total.total_cmp(&b.total),
            _ => a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)),
        };
        if *ascending {
            ordering
        } else {
            ordering.reverse()
        }
    });
    let url = format!("{}/orders", state.base_url);
    let (page_orders, pagination) = paginate(&orders, page, &url, &query);
    let body = rendered_list_body(page_orders.iter().map(|o| &*o.rendered), &pagination);
    json_bytes_response(StatusCode::OK, body)
}
