//! Products: the quantities list (one row per variant, or per product without variants), a
//! variant's details, and options, whose values multiply a product's variants.

use serde_json::{Map, Value, json};

use crate::engine::Call;
use crate::error::{ApiError, FieldErrors, Text};
use crate::formats::{money, number};
use crate::respond::{Handled, Reply};
use crate::seed::tables::keys::{BRANDS, CATEGORIES, PRODUCTS, TAGS};
use crate::store::{Store, id_text_value, object_mut, value_as_f64};

fn ids(value: Option<&Value>) -> Vec<i64> {
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_i64).collect(),
        Some(Value::Number(n)) => n.as_i64().into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Whether one of `ids` is wanted, by id or by the name of the record in `key`.
fn matches_named(store: &Store, key: &str, wanted: &[&str], ids: &[i64]) -> bool {
    wanted.is_empty()
        || ids.iter().any(|id| {
            let name = store
                .get(key, &id.to_string())
                .and_then(|r| r.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            wanted
                .iter()
                .any(|w| *w == id.to_string() || w.eq_ignore_ascii_case(name))
        })
}

/// The label of a variant: its option value names joined with ` - `.
fn variant_label(product: &Value, variant: &Value) -> String {
    let values: Vec<&Value> = product
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|o| {
            o.get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .collect();
    ids(variant.get("related_option_values"))
        .iter()
        .filter_map(|id| {
            values
                .iter()
                .find(|v| v.get("id").and_then(Value::as_i64) == Some(*id))
                .and_then(|v| v.get("name"))
                .and_then(Value::as_str)
        })
        .collect::<Vec<_>>()
        .join(" - ")
}

/// The rows of the quantities list of one product record.
fn quantity_rows(product: &Value) -> Vec<Value> {
    // The list shows a price as its bare amount (`127` or `"127.00"`), where the product holds
    // money.
    let own_price = product
        .get("price")
        .map(|p| p.get("amount").unwrap_or(p))
        .cloned()
        .unwrap_or(Value::Null);
    let price_as_string = own_price.is_string();
    let price = |amount: f64| {
        if price_as_string {
            Value::from(format!("{amount:.2}"))
        } else {
            number(amount)
        }
    };
    let field = |name: &str| product.get(name).cloned().unwrap_or(Value::Null);
    let variants = product
        .get("skus")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty());
    let Some(variants) = variants else {
        return vec![json!({
            "id": field("id"), "name": field("name"), "image": field("image"), "sku_id": Value::Null,
            "sku": field("sku"), "quantity": field("quantity"), "sold_quantity": field("sold_quantity"),
            "price": own_price, "unlimited_quantity": field("unlimited_quantity"), "variant": Value::Null,
        })];
    };
    variants
        .iter()
        .map(|variant| {
            let id = variant.get("id").cloned().unwrap_or(Value::Null);
            let sku_id = if variant.get("__sku_id_as_string") == Some(&Value::Bool(true)) {
                Value::from(id_text_value(&id).unwrap_or_default())
            } else {
                id
            };
            let sku = variant
                .get("sku")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or(Value::Null, Value::from);
            let amount = variant
                .pointer("/price/amount")
                .and_then(value_as_f64)
                .unwrap_or(0.0);
            json!({
                "id": field("id"), "name": field("name"), "image": field("image"), "sku_id": sku_id,
                "sku": sku, "quantity": variant.get("stock_quantity").cloned().unwrap_or(Value::from(0)),
                "sold_quantity": field("sold_quantity"), "price": price(amount),
                "unlimited_quantity": field("unlimited_quantity"), "variant": variant_label(product, variant),
            })
        })
        .collect()
}

/// `GET /products/quantities`: a view of the products, filtered by category, brand and tag (ids
/// or names) and branch; the engine applies `keyword`, paging and the row schema.
pub(super) fn list_product_quantities(call: &Call<'_>) -> Handled {
    let query = &call.query;
    let categories = query.all("categories");
    let brands = query.all("brands");
    let tags = query.all("tags");
    let branch: Option<i64> = query.one("branch").and_then(|b| b.trim().parse().ok());
    if categories.is_empty() && brands.is_empty() && tags.is_empty() && branch.is_none() {
        let rows = call.state.view("product_quantities", || {
            let store = call.state.read();
            store
                .records(PRODUCTS)
                .iter()
                .flat_map(quantity_rows)
                .collect()
        });
        return Ok(Reply::SharedRecords(rows));
    }
    let store = call.state.read();
    let rows: Vec<Value> = store
        .records(PRODUCTS)
        .iter()
        .filter(|p| {
            matches_named(&store, CATEGORIES, &categories, &ids(p.get("categories")))
                && matches_named(&store, BRANDS, &brands, &ids(p.get("brand")))
                && matches_named(&store, TAGS, &tags, &ids(p.get("tags")))
                && branch.is_none_or(|b| ids(p.get("branches")).contains(&b))
        })
        .flat_map(quantity_rows)
        .collect();
    drop(store);
    Ok(Reply::Records(rows))
}

/// `GET /products/variants/{variant}`: a variant of any product.
pub(super) fn get_product_variant(call: &Call<'_>) -> Handled {
    let id = call.last_param().unwrap_or_default().trim().to_owned();
    let store = call.state.read();
    let variant = store
        .records(PRODUCTS)
        .iter()
        .flat_map(|p| {
            p.get("skus")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .find(|v| v.get("id").and_then(id_text_value).as_deref() == Some(id.as_str()))
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    Ok(Reply::Data(variant))
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Adds an option with `values` (name, extra price) to `product`; for products of type
/// `product`, its variants become every combination of option values.
fn add_option(
    store: &mut Store,
    product: &mut Value,
    option: Map<String, Value>,
    values: &[(String, f64)],
) -> Value {
    let option_id = store.new_id();
    let values: Vec<Value> = values
        .iter()
        .map(|(name, price)| {
            json!({
                "id": store.new_id(), "name": name, "price": money(*price), "display_value": name,
                "option_id": option_id, "image_url": "", "hashed_display_value": name,
            })
        })
        .collect();
    let map = object_mut(product);
    let sort = map
        .get("options")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut option_record = json!({
        "id": option_id, "type": "radio", "associated_with_order_time": 0, "sort": sort,
        "description": Value::Null, "required": false, "display_type": "text", "visibility": "always",
    });
    object_mut(&mut option_record).extend(option);
    object_mut(&mut option_record).insert("values".into(), Value::Array(values.clone()));
    let options = map
        .entry("options")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(options) = options {
        options.push(option_record.clone());
    }
    if map.get("type").and_then(Value::as_str) != Some("product") || values.is_empty() {
        return option_record;
    }
    let product_id = map.get("id").and_then(Value::as_i64).unwrap_or(0);
    let previous: Vec<Value> = match map.get("skus").and_then(Value::as_array) {
        Some(skus) if !skus.is_empty() => skus.clone(),
        _ => {
            let price = map
                .get("price")
                .and_then(|p| value_as_f64(p.get("amount").unwrap_or(p)))
                .unwrap_or(0.0);
            vec![json!({
                "price": money(price), "regular_price": money(price), "sale_price": money(0.0),
                "cost_price": money(0.0), "stock_quantity": map.get("quantity").cloned().unwrap_or(Value::from(0)),
                "barcode": "", "sku": map.get("sku").and_then(Value::as_str).unwrap_or_default(),
                "related_option_values": [], "weight": 0.5,
            })]
        }
    };
    let mut variants = Vec::new();
    for base in &previous {
        for value in &values {
            let id = store.new_id();
            let value_id = value.get("id").cloned().unwrap_or(Value::Null);
            let value_name = value
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let extra = value
                .pointer("/price/amount")
                .and_then(value_as_f64)
                .unwrap_or(0.0);
            let amount = |key: &str| {
                base.pointer(&format!("/{key}/amount"))
                    .and_then(value_as_f64)
                    .unwrap_or(0.0)
            };
            let mut related = ids(base.get("related_option_values"));
            related.extend(value_id.as_i64());
            let base_sku = base.get("sku").and_then(Value::as_str).unwrap_or_default();
            let sku_base = if base_sku.is_empty() {
                format!("P{product_id}")
            } else {
                base_sku.to_owned()
            };
            let weight = base.get("weight").and_then(value_as_f64).unwrap_or(0.5);
            let stock = base
                .get("stock_quantity")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                / values.len().max(1) as i64;
            variants.push(json!({
                "id": id,
                "__sku_id_as_string": id % 4 == 0,
                "price": money(round2(amount("price") + extra)),
                "regular_price": money(round2(amount("regular_price") + extra)),
                "sale_price": base.get("sale_price").cloned().unwrap_or(money(0.0)),
                "cost_price": base.get("cost_price").cloned().unwrap_or(money(0.0)),
                "stock_quantity": stock,
                "barcode": format!("{id:013}"),
                "sku": format!("{sku_base}-{}", value_name.to_lowercase().replace(' ', "-")),
                "related_option_values": related,
                "weight": number(weight),
                "weight_type": "kg",
                "weight_label": format!("{weight} كجم"),
            }));
        }
    }
    map.insert("skus".into(), Value::Array(variants));
    option_record
}

/// `POST /products/{product}/options`: a new option; its values multiply the product's variants.
pub(super) fn create_product_option(call: &Call<'_>) -> Handled {
    let product_id = call.last_param().unwrap_or_default().trim().to_owned();
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    if body.get("visibility").and_then(Value::as_str) == Some("on_condition") {
        for field in ["visibility_condition_option", "visibility_condition_value"] {
            if body.get(field).is_none_or(Value::is_null) {
                errors.required(field);
            }
        }
    }
    let mut values = Vec::new();
    for (i, item) in body
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
        if name.trim().is_empty() {
            errors.required(&format!("values.{i}.name"));
        }
        let price = match item.get("price") {
            None | Some(Value::Null) => 0.0,
            Some(v) => match value_as_f64(v) {
                Some(p) if (0.0..=1e12).contains(&p) => p,
                _ => {
                    errors.add(
                        format!("values.{i}.price"),
                        Text::new("The price must be a number.", "يجب على price أن يكون رقمًا."),
                    );
                    0.0
                }
            },
        };
        values.push((name.to_owned(), price));
    }
    if values.is_empty() {
        errors.required("values");
    }
    let mut store = call.state.write();
    let mut product = store
        .get(PRODUCTS, &product_id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    errors.finish()?;
    let mut option = Map::new();
    for field in ["name", "description", "display_type", "visibility"] {
        if let Some(value) = body.get(field).filter(|v| v.is_string()) {
            option.insert(field.into(), value.clone());
        }
    }
    if let Some(required) = body.get("required") {
        let required = match required {
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_i64() == Some(1),
            Value::String(s) => s == "true" || s == "1",
            _ => false,
        };
        option.insert("required".into(), Value::Bool(required));
    }
    let mut answer = add_option(&mut store, &mut product, option, &values);
    let skus = product.get("skus").cloned().unwrap_or(json!([]));
    object_mut(&mut answer).insert("skus".into(), skus);
    let event = json!({ "id": product.get("id"), "name": product.get("name"), "price": product.get("price"), "type": product.get("type") });
    store.insert(PRODUCTS, product);
    drop(store);
    call.state.emit("product.updated", &event);
    Ok(Reply::DataWithStatus(
        axum::http::StatusCode::CREATED,
        answer,
    ))
}

/// The stock of a product with variants: the sum of its variants' (the quantities list shows
/// each variant's, the product's `quantity` their sum, as the dashboard does).
fn restock_from_variants(product: &mut Value) {
    let Some(skus) = product
        .get("skus")
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    else {
        return;
    };
    let sum: i64 = skus
        .iter()
        .filter_map(|v| v.get("stock_quantity").and_then(value_as_f64))
        .map(|q| q as i64)
        // Saturating: a variant may hold any quantity a client sends (schemathesis sent
        // 9223372036854775806), and an overflow must not end the mock's task.
        .fold(0i64, i64::saturating_add);
    object_mut(product).insert("quantity".into(), Value::from(sum));
}

/// Where a stock entry points: a product (without variants) or one variant of it.
enum Stock {
    Product(String),
    Variant(String, usize),
}

/// The stock entry `identifier` names, by `kind` (`id`: a product; `variant_id`: a variant;
/// `sku`: a product's or a variant's SKU).
fn find_stock(store: &Store, kind: &str, identifier: &str) -> Option<Stock> {
    let identifier = identifier.trim();
    let variant_where = |test: &dyn Fn(&Value) -> bool| {
        store.records(PRODUCTS).iter().rev().find_map(|p| {
            let at = p
                .get("skus")
                .and_then(Value::as_array)?
                .iter()
                .position(test)?;
            Some(Stock::Variant(p.get("id").and_then(id_text_value)?, at))
        })
    };
    match kind {
        "variant_id" => variant_where(&|v: &Value| {
            v.get("id").and_then(id_text_value).as_deref() == Some(identifier)
        }),
        "sku" => store
            .records(PRODUCTS)
            .find_by("sku", identifier)
            .and_then(|p| p.get("id").and_then(id_text_value))
            .map(Stock::Product)
            .or_else(|| {
                variant_where(&|v: &Value| v.get("sku").and_then(Value::as_str) == Some(identifier))
            }),
        _ => store
            .get(PRODUCTS, identifier)
            .and_then(|p| p.get("id").and_then(id_text_value))
            .map(Stock::Product),
    }
}

/// The new stock of `current` by `mode` (`overwrite`, the default; `increment`; `decrement`),
/// never below zero.
fn restocked(current: i64, quantity: i64, mode: &str) -> i64 {
    match mode {
        "increment" => current.saturating_add(quantity),
        "decrement" => current.saturating_sub(quantity),
        _ => quantity,
    }
    .max(0)
}

/// Sets the stock `stock` points at; returns the product's id.
fn apply_stock(store: &mut Store, stock: &Stock, quantity: i64, mode: &str) -> Option<String> {
    match stock {
        Stock::Product(id) => {
            let product = store.get_mut(PRODUCTS, id)?;
            let current = product
                .get("quantity")
                .and_then(value_as_f64)
                .unwrap_or(0.0) as i64;
            object_mut(product).insert(
                "quantity".into(),
                Value::from(restocked(current, quantity, mode)),
            );
            Some(id.clone())
        }
        Stock::Variant(id, at) => {
            let product = store.get_mut(PRODUCTS, id)?;
            let variant = product.get_mut("skus")?.as_array_mut()?.get_mut(*at)?;
            let current = variant
                .get("stock_quantity")
                .and_then(value_as_f64)
                .unwrap_or(0.0) as i64;
            object_mut(variant).insert(
                "stock_quantity".into(),
                Value::from(restocked(current, quantity, mode)),
            );
            restock_from_variants(product);
            Some(id.clone())
        }
    }
}

/// Puts an order line's quantity back in stock (a cancellation with `restore_items`): the
/// variant or product its SKU names, else its product; a product of unlimited stock is left as
/// it is. Answers whether some stock changed.
pub(super) fn restore_line_stock(store: &mut Store, line: &Value) -> bool {
    let quantity = line.get("quantity").and_then(value_as_f64).unwrap_or(0.0) as i64;
    if quantity <= 0 {
        return false;
    }
    let by_sku = line
        .get("sku")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .and_then(|sku| find_stock(store, "sku", sku));
    let stock = by_sku.or_else(|| {
        line.get("product_id")
            .and_then(id_text_value)
            .and_then(|id| find_stock(store, "id", &id))
    });
    let Some(stock) = stock else {
        return false;
    };
    let id = match &stock {
        Stock::Product(id) | Stock::Variant(id, _) => id.clone(),
    };
    let unlimited = store
        .get(PRODUCTS, &id)
        .and_then(|p| p.get("unlimited_quantity"))
        .is_some_and(|u| crate::laravel::laravel_bool(u) == Some(true));
    !unlimited && apply_stock(store, &stock, quantity, "increment").is_some()
}

/// `POST /products/quantities/bulk` (`update_product_quantities`): each entry's stock, by
/// product id, variant id or SKU, overwritten, incremented or decremented; the product, its
/// variants and the quantities list show it. An entry naming nothing of the store is skipped; a
/// product with variants named by its own id (its stock is its variants') is a 422, and then
/// nothing changes.
pub(super) fn update_product_quantities(call: &Call<'_>) -> Handled {
    let entries: Vec<Value> = call
        .body
        .get("products")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut store = call.state.write();
    let mut errors = FieldErrors::new();
    let mut changes = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let kind = entry
            .get("identifer_type")
            .and_then(Value::as_str)
            .unwrap_or("id");
        let identifier = entry
            .get("identifer")
            .and_then(id_text_value)
            .unwrap_or_default();
        let field = format!("products.{i}.identifer");
        match find_stock(&store, kind, &identifier) {
            Some(Stock::Product(id))
                if store
                    .get(PRODUCTS, &id)
                    .and_then(|p| p.get("skus"))
                    .and_then(Value::as_array)
                    .is_some_and(|s| !s.is_empty()) =>
            {
                errors.add(
                    field,
                    Text::new(
                        "The product has variants: update the quantity of each variant.",
                        "المنتج له خيارات: حدّث كمية كل خيار.",
                    ),
                );
            }
            Some(stock) => {
                let quantity = entry.get("quantity").and_then(value_as_f64).unwrap_or(0.0) as i64;
                let mode = entry
                    .get("mode")
                    .and_then(Value::as_str)
                    .unwrap_or("overwrite")
                    .to_owned();
                changes.push((stock, quantity, mode));
            }
            // An entry naming nothing of the store changes nothing (the others still apply).
            None => {}
        }
    }
    errors.finish()?;
    let mut changed = Vec::new();
    for (stock, quantity, mode) in &changes {
        if let Some(id) = apply_stock(&mut store, stock, *quantity, mode)
            && !changed.contains(&id)
        {
            changed.push(id);
        }
    }
    let events: Vec<Value> = changed
        .iter()
        .filter_map(|id| store.get(PRODUCTS, id))
        .map(crate::shape::strip_hidden)
        .collect();
    drop(store);
    for event in &events {
        call.state.emit("product.updated", event);
    }
    Ok(Reply::Data(json!({
        "message": "The quantities have been updated successfully",
        "code": call.op.success_status,
    })))
}

/// `PUT /products/quantities/variant/{variant_id}` (`update_product_variant_quantity`): the
/// variant's stock set; its product's quantity is its variants' sum. Answers the variant.
pub(super) fn update_product_variant_quantity(call: &Call<'_>) -> Handled {
    let variant_id = call.last_param().unwrap_or_default().to_owned();
    let quantity = call
        .body
        .get("quantity")
        .and_then(value_as_f64)
        .unwrap_or(0.0) as i64;
    let mut store = call.state.write();
    let stock = find_stock(&store, "variant_id", &variant_id).ok_or_else(ApiError::not_found)?;
    let id =
        apply_stock(&mut store, &stock, quantity, "overwrite").ok_or_else(ApiError::not_found)?;
    let Stock::Variant(_, at) = stock else {
        return Err(ApiError::not_found());
    };
    let product = store.get(PRODUCTS, &id).ok_or_else(ApiError::not_found)?;
    let variant = product
        .get("skus")
        .and_then(|s| s.get(at))
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let event = crate::shape::strip_hidden(product);
    drop(store);
    call.state.emit("product.updated", &event);
    Ok(Reply::Data(variant))
}
