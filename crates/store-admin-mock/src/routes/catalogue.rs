//! Products, options, variants, languages and categories.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use store_admin_client::types;

use super::{envelope, opt_bool, opt_int, opt_str, path_id, req_str};
use crate::app::{Shared, json_bytes_response, json_object, respond};
use crate::error::{ApiError, FieldErrors};
use crate::model::{Category, Language, Named, Product};
use crate::paging::{PageRequest, QueryPairs, page_window, rendered_list_body};
use crate::store::{LANGUAGE_CATALOGUE, OptionSpec, value_as_f64};

fn matches_named(wanted: &[&str], ids: &[i64], names: &[Named]) -> bool {
    wanted.is_empty()
        || ids.iter().any(|id| {
            let name = names
                .iter()
                .find(|n| n.id == *id)
                .map(|n| n.name.as_str())
                .unwrap_or_default();
            wanted
                .iter()
                .any(|w| *w == id.to_string() || w.eq_ignore_ascii_case(name))
        })
}

pub(super) async fn list_product_quantities(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let page = match PageRequest::from_query(&query) {
        Ok(page) => page,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let branch = query.int("branch", &mut errors);
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let keyword = query.one("keyword").map(str::to_lowercase);
    let categories = query.all("categories");
    let brands = query.all("brands");
    let tags = query.all("tags");
    let store = state.read();
    // Names are only needed when a filter may name a category rather than give its id.
    let category_names: Vec<Named> = if categories.is_empty() {
        Vec::new()
    } else {
        store
            .categories
            .iter()
            .map(|c| Named {
                id: c.id,
                name: c.name.clone(),
            })
            .collect()
    };
    let filtered = keyword.is_some()
        || !categories.is_empty()
        || !brands.is_empty()
        || !tags.is_empty()
        || branch.is_some();
    let product_matches = |product: &Product| {
        !filtered
            || (keyword
                .as_ref()
                .is_none_or(|k| product.search.contains(k.as_str()))
                && matches_named(&categories, &product.categories, &category_names)
                && matches_named(&brands, product.brand.as_slice(), &store.brands)
                && matches_named(&tags, &product.tags, &store.tags)
                && branch.is_none_or(|b| product.branches.contains(&b)))
    };
    // One row per variant (or per product without variants), rendered when the product changed.
    // Counted in one pass, the page's rows taken in a second: nothing is collected but the page.
    let rows = || {
        store
            .products
            .iter()
            .filter(|p| product_matches(p))
            .flat_map(|p| p.rows.iter().map(|row| &**row))
    };
    let total = store
        .products
        .iter()
        .filter(|p| product_matches(p))
        .map(|p| p.rows.len())
        .sum();
    let url = format!("{}/products/quantities", state.base_url);
    let (window, pagination) = page_window(total, page, &url, &query);
    let page_rows: Vec<&str> = rows().skip(window.start).take(window.len()).collect();
    let body = rendered_list_body(page_rows.into_iter(), &pagination);
    json_bytes_response(StatusCode::OK, body)
}

pub(super) async fn create_product_option(
    State(state): State<Shared>,
    Path(product): Path<String>,
    body: Bytes,
) -> Response {
    let product_id = match path_id(&product) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let body = match json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let name = req_str(&body, "name", &mut errors);
    let required = opt_bool(&body, "required", &mut errors).unwrap_or(false);
    let display_type = opt_str(&body, "display_type", &mut errors).unwrap_or_else(|| "text".into());
    let visibility = opt_str(&body, "visibility", &mut errors).unwrap_or_else(|| "always".into());
    let _ = opt_str(&body, "visibility_condition_type", &mut errors);
    let condition_option = opt_int(&body, "visibility_condition_option", &mut errors);
    let condition_value = opt_int(&body, "visibility_condition_value", &mut errors);
    let description = opt_str(&body, "description", &mut errors);
    if visibility == "on_condition" {
        if condition_option.is_none() {
            errors.required("visibility_condition_option");
        }
        if condition_value.is_none() {
            errors.required("visibility_condition_value");
        }
    }
    let mut values = Vec::new();
    match body.get("values") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let Some(item) = item.as_object() else {
                    errors.add(format!("values.{i}"), "Each value must be an object.");
                    continue;
                };
                let value_name = match item.get("name") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                    _ => {
                        errors.required(&format!("values.{i}.name"));
                        continue;
                    }
                };
                let price = match item.get("price") {
                    None | Some(Value::Null) => 0.0,
                    Some(v) => match value_as_f64(v) {
                        Some(p) if p >= 0.0 => p,
                        _ => {
                            errors.add(format!("values.{i}.price"), "The price must be a number.");
                            0.0
                        }
                    },
                };
                values.push((value_name, price));
            }
        }
        Some(Value::Array(_)) | None | Some(Value::Null) => errors.required("values"),
        Some(_) => errors.add("values", "The values must be an array."),
    }
    let mut store = state.write();
    let Some(mut product) = store.product(product_id).cloned() else {
        return ApiError::not_found().into_response();
    };
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let name = name.unwrap_or_default();
    let spec = OptionSpec {
        name,
        description,
        required,
        display_type,
        visibility,
        values,
    };
    let option_id = store.add_option(&mut product, spec);
    let option = product.options.iter().find(|o| o.id == option_id).cloned();
    let response = option.map(|o| product.option_json(&o));
    let event = json!({ "id": product.id, "name": product.name, "price": product.price, "type": product.kind });
    product.refresh();
    if let Some(slot) = store.product_mut(product_id) {
        *slot = product;
    }
    drop(store);
    state.emit("product.updated", &event);
    match response {
        Some(data) => respond::<types::ProductOptionResponse>(
            StatusCode::CREATED,
            envelope(StatusCode::CREATED, data),
        ),
        None => ApiError::not_found().into_response(),
    }
}

pub(super) async fn get_product_variant(
    State(state): State<Shared>,
    Path(variant): Path<String>,
) -> Response {
    let id = match path_id(&variant) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.variant(id) {
        Some(variant) => respond::<types::ProductVariantResponse>(
            StatusCode::OK,
            envelope(StatusCode::OK, variant.details_json()),
        ),
        None => ApiError::not_found().into_response(),
    }
}

pub(super) async fn add_languages(State(state): State<Shared>, body: Bytes) -> Response {
    let body = match json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let mut wanted = Vec::new();
    match body.get("locales") {
        Some(Value::Array(locales)) if !locales.is_empty() => {
            for (i, locale) in locales.iter().enumerate() {
                let field = format!("locales.{i}.iso_code");
                let iso = match locale.get("iso_code") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_lowercase(),
                    _ => {
                        errors.add(&field, format!("حقل {field} مطلوب."));
                        continue;
                    }
                };
                if iso.chars().count() > 3 {
                    errors.add(
                        &field,
                        format!("يجب أن لا يتجاوز طول النّص {field} 3 حروفٍ/حرفًا"),
                    );
                }
                let Some(known) = LANGUAGE_CATALOGUE.iter().find(|l| l.0 == iso) else {
                    errors.add(&field, format!("حقل {field} غير صالحٍ"));
                    continue;
                };
                let sort_order = match locale.get("sort_order") {
                    None | Some(Value::Null) => None,
                    Some(v) => match value_as_f64(v) {
                        Some(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as i64),
                        _ => {
                            errors.add(
                                format!("locales.{i}.sort_order"),
                                "The sort order must be a whole number.",
                            );
                            None
                        }
                    },
                };
                wanted.push((field, known, sort_order));
            }
        }
        _ => errors.add("locales", "حقل locales مطلوب."),
    }
    let mut store = state.write();
    let mut seen: Vec<&str> = Vec::new();
    for (field, known, _) in &wanted {
        if store.languages.iter().any(|l| l.iso_code == known.0) || seen.contains(&known.0) {
            errors.add(field.clone(), "لغة أضيفت بالفعل");
        }
        seen.push(known.0);
    }
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let mut added = Vec::new();
    for (_, (iso, name, country, rtl), sort_order) in wanted {
        let id = store.languages.iter().map(|l| l.id).max().unwrap_or(0) + 1;
        let sort_order = sort_order.unwrap_or(store.languages.len() as i64);
        let language = Language {
            id,
            name: (*name).to_owned(),
            rtl: *rtl,
            iso_code: (*iso).to_owned(),
            country_code: (*country).to_owned(),
            sort_order,
        };
        added.push(language.to_json());
        store.languages.push(language);
    }
    drop(store);
    respond::<types::LanguageList>(
        StatusCode::OK,
        envelope(StatusCode::OK, Value::Array(added)),
    )
}

pub(super) async fn create_category(State(state): State<Shared>, body: Bytes) -> Response {
    let body = match json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let name = req_str(&body, "name", &mut errors);
    let status = opt_str(&body, "status", &mut errors).unwrap_or_else(|| "active".into());
    if status != "active" && status != "hidden" {
        errors.add("status", "The status must be active or hidden.");
    }
    let parent_id = opt_int(&body, "parent_id", &mut errors);
    let metadata_title = opt_str(&body, "metadata_title", &mut errors);
    let metadata_description = opt_str(&body, "metadata_description", &mut errors);
    let metadata_url = opt_str(&body, "metadata_url", &mut errors);
    let mut store = state.write();
    if let Some(parent) = parent_id
        && parent != 0
        && !store.categories.iter().any(|c| c.id == parent)
    {
        errors.add("parent_id", "The selected parent id is invalid.");
    }
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let name = name.unwrap_or_default();
    let id = store.new_id();
    let category = Category {
        id,
        parent_id: parent_id.unwrap_or(0),
        status,
        sort_order: store.categories.len() as i64,
        metadata_title: metadata_title.unwrap_or_else(|| name.clone()),
        metadata_description: metadata_description.unwrap_or_default(),
        metadata_url: metadata_url.unwrap_or_else(|| name.to_lowercase().replace(' ', "-")),
        name,
    };
    let data = category.to_json(&[]);
    store.categories.push(category);
    drop(store);
    state.emit("category.created", &data);
    respond::<types::CategoryResponse>(StatusCode::CREATED, envelope(StatusCode::CREATED, data))
}
