//! Orders: their details (`get_order`, and the answers of `create_order`, `update_order` and
//! `duplicate_order`) in the details' shape, projected from the order's record by
//! [`super::order_details`]; a new order made of products and a customer of the store; a status
//! change (`POST /orders/{order_id}/status`) that moves the order to a status of the store and
//! tells the webhooks; a draft (`POST /orders/draft`), an order of the same collection in the
//! draft state; the bulk actions of `POST /orders/actions` (assigning employees and tags, status
//! changes, marking read, deleting).
//!
//! An order's tags are the store's tags (the documentation documents one collection of them, `GET
//! /products/tags`, and no other; the seed tags orders from it): the order's record holds their
//! ids, as the orders list's `tags[]` filter reads them, and its details show each as `{id, name}`.

use serde_json::{Map, Value, json};

use super::order_details::details;
use crate::engine::Call;
use crate::engine::crud::find_id;
use crate::error::{ApiError, FieldErrors, Text, collection_full, required, selected_invalid};
use crate::formats::{local_date, money, number};
use crate::respond::{Handled, Reply};
use crate::seed::tables::SHIPPING_COST;
use crate::seed::tables::keys::{
    BRANCHES, ORDER_STATUSES, ORDERS, PRODUCTS, SHIPPING_COMPANIES, TAGS,
};
use crate::store::{Store, id_text_value, now_local, object_mut, value_as_f64};

/// Seconds a new order waits for its payment.
const PAYMENT_WINDOW_SECONDS: i64 = 86_400;

/// The status of an order as its record holds it, from a status record of the store.
fn status_summary(status: &Value) -> Value {
    let original = status.get("original").cloned().unwrap_or(Value::Null);
    json!({
        "id": original.get("id").cloned().unwrap_or_else(|| status.get("id").cloned().unwrap_or(Value::Null)),
        "name": original.get("name").cloned().unwrap_or_else(|| status.get("name").cloned().unwrap_or(Value::Null)),
        "slug": status.get("slug"),
        "customized": { "id": status.get("id"), "name": status.get("name") },
    })
}

/// The hidden mark of an order whose items were put back in stock (never twice).
const ITEMS_RESTORED: &str = "__items_restored";

/// The collection of orders' history entries (by the document's path).
const ORDER_HISTORIES: &str = "/orders/{}/histories";

/// Records a status change in the order's history, as the service does ("a `note` is recorded in
/// the order's history"): an `activity` entry naming the new status, with the note when one was
/// sent, by no employee (`created_by: null`, the documentation's "the system"), newest first in
/// `GET /orders/{order_id}/histories`. A full history collection keeps its newest entries.
fn push_order_history(
    store: &mut Store,
    histories: &str,
    order: &Value,
    status: &Value,
    note: Option<&str>,
    cap: usize,
) {
    let id = store.new_id();
    let entry = json!({
        "id": id,
        "order_id": order.get("id").cloned().unwrap_or(Value::Null),
        "status": status.get("name").cloned().unwrap_or(Value::Null),
        "note": note,
        "type": "activity",
        "created_at": local_date(&now_local()),
        "created_by": Value::Null,
        "customized": status.get("customized").cloned().unwrap_or(Value::Null),
    });
    let records = store.records_mut(histories);
    if records.len() >= cap {
        let mut extra = records.len() + 1 - cap;
        records.retain(|_| {
            let keep = extra == 0;
            extra = extra.saturating_sub(1);
            keep
        });
    }
    store.insert(histories, entry);
}

/// The status `slug` of the store, as an order's record holds it (null when the store has none).
fn status_by_slug(store: &Store, slug: &str) -> Value {
    store
        .records(ORDER_STATUSES)
        .iter()
        .find(|s| s.get("slug").and_then(Value::as_str) == Some(slug))
        .map_or(Value::Null, status_summary)
}

/// The record of the order the path names, and its id.
fn path_order(call: &Call<'_>, store: &Store) -> Result<(String, Value), ApiError> {
    let value = call.last_param().unwrap_or_default();
    let id = find_id(store, ORDERS, "order_id", value).ok_or_else(ApiError::not_found)?;
    let order = store
        .get(ORDERS, &id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    Ok((id, order))
}

/// `GET /orders/{order_id}` (`get_order`): the order's details.
pub(super) fn get_order(call: &Call<'_>) -> Handled {
    let store = call.state.read();
    let (_, order) = path_order(call, &store)?;
    Ok(Reply::Data(details(&store, call.engine, &order)))
}

/// The customers collection of the document, if it has one.
fn customers_key<'a>(call: &'a Call<'_>) -> Option<&'a str> {
    call.engine
        .collection_for_field("customer_id")
        .map(|c| call.engine.real_key(&c.key))
}

/// The customer a body's `customer` names.
enum CustomerChoice {
    /// One of the store's, by id.
    Existing(Value),
    /// A new one, to store with the order.
    New(Value),
}

fn body_text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The customer of `input` (`OrderCustomerInput`): an existing one by `id` (422 on `customer.id`
/// when the store has no such customer), else the one with the same email or mobile, else a new
/// one made of `name`, `mobile` and `email` (422 on `customer` when the customers collection is
/// full). `None` when `input` names no customer at all, or on a 422.
fn choose_customer(
    call: &Call<'_>,
    store: &mut Store,
    input: &Value,
    errors: &mut FieldErrors,
) -> Option<CustomerChoice> {
    let key = customers_key(call)?;
    if let Some(id) = input.get("id").and_then(id_text_value) {
        if store.get(key, &id).is_none() {
            errors.add("customer.id", selected_invalid("customer id"));
            return None;
        }
        return Some(CustomerChoice::Existing(
            store.get(key, &id)?.get("id").cloned()?,
        ));
    }
    let name = body_text(input.get("name"));
    let email = body_text(input.get("email"));
    let mobile = body_text(input.get("mobile"));
    if name.is_none() && email.is_none() && mobile.is_none() {
        return None;
    }
    let (mobile_code, mobile_number) = match mobile.as_deref() {
        Some(m) if m.starts_with("+966") => (Some("+966"), Some(m["+966".len()..].to_owned())),
        Some(m) => (None, Some(m.to_owned())),
        None => (None, None),
    };
    let same = store.records(key).iter().find(|c| {
        let field = |f: &str| c.get(f).and_then(id_text_value).unwrap_or_default();
        email
            .as_deref()
            .is_some_and(|e| field("email").eq_ignore_ascii_case(e))
            || mobile_number
                .as_deref()
                .is_some_and(|m| !m.is_empty() && field("mobile") == m)
    });
    if let Some(id) = same.and_then(|c| c.get("id").cloned()) {
        return Some(CustomerChoice::Existing(id));
    }
    let cap = call.state.limits.collection_records;
    if store.records(key).len() >= cap {
        errors.add(
            "customer",
            Text::new(
                format!("The customers are full: the store holds at most {cap}."),
                format!("العملاء مكتملون: يتسع المتجر لـ {cap} عميل على الأكثر."),
            ),
        );
        return None;
    }
    let id = store.new_id();
    let name = name.unwrap_or_default();
    let (first, last) = name.split_once(' ').unwrap_or((name.as_str(), ""));
    let mut customer = json!({
        "id": id,
        "first_name": first,
        "last_name": last.trim(),
        "urls": {
            "customer": "https://store.example/profile",
            "admin": format!("https://s.example/customers/{id}"),
        },
        "currency": crate::formats::CURRENCY,
        "updated_at": local_date(&now_local()),
        "groups": [],
    });
    let map = object_mut(&mut customer);
    if let Some(email) = email {
        map.insert("email".into(), Value::from(email));
    }
    if let Some(number) = mobile_number {
        map.insert("mobile".into(), Value::from(number));
    }
    if let Some(code) = mobile_code {
        map.insert("mobile_code".into(), Value::from(code));
    }
    Some(CustomerChoice::New(customer))
}

/// Stores a chosen customer (a new one is added to the customers); returns its id and record.
fn settle_customer(call: &Call<'_>, store: &mut Store, choice: CustomerChoice) -> (Value, bool) {
    match choice {
        CustomerChoice::Existing(id) => (id, false),
        CustomerChoice::New(record) => {
            let id = record.get("id").cloned().unwrap_or(Value::Null);
            if let Some(key) = customers_key(call) {
                store.insert(key, record);
            }
            (id, true)
        }
    }
}

/// The record of a customer, if the store has it.
fn customer_record(call: &Call<'_>, store: &Store, id: &Value) -> Option<Value> {
    let key = customers_key(call)?;
    store.get(key, &id_text_value(id)?).cloned()
}

/// `receiver` of a body (`OrderReceiverInput`) as an order holds it (`{name, email, phone}`).
fn receiver(input: &Value) -> Option<Value> {
    let mut out = Map::new();
    if let Some(name) = body_text(input.get("name")) {
        out.insert("name".into(), Value::from(name));
    }
    if let Some(email) = body_text(input.get("email")) {
        out.insert("email".into(), Value::from(email));
    }
    if let Some(phone) = body_text(input.get("phone")) {
        let phone = match body_text(input.get("country_code")) {
            Some(code) if !phone.starts_with('+') => format!("{code}{phone}"),
            _ => phone,
        };
        out.insert("phone".into(), Value::from(phone));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Checks that `branch_id` and `courier_id` of the body name records of the store; returns the
/// shipping application of the courier (the orders list filters by it).
fn check_branch_and_courier(
    store: &Store,
    body: &Map<String, Value>,
    errors: &mut FieldErrors,
) -> Option<Option<i64>> {
    let named = |field: &str| {
        body.get(field)
            .and_then(id_text_value)
            .filter(|id| id != "0")
    };
    if let Some(branch) = named("branch_id")
        && store.get(BRANCHES, &branch).is_none()
    {
        errors.add("branch_id", selected_invalid("branch id"));
    }
    let courier = named("courier_id")?;
    match store.get(SHIPPING_COMPANIES, &courier) {
        Some(company) => Some(
            company
                .get("app_id")
                .and_then(id_text_value)
                .and_then(|a| a.parse().ok()),
        ),
        None => {
            errors.add("courier_id", selected_invalid("courier id"));
            None
        }
    }
}

/// The payment method of a body's `payment`, and whether the order then waits for its payment
/// (unless paid, or paid on delivery).
fn payment_of(payment: Option<&Value>) -> (Option<String>, Option<bool>) {
    let method = payment.and_then(|p| body_text(p.get("method")));
    let status = payment.and_then(|p| body_text(p.get("status")));
    let pending = match (status.as_deref(), method.as_deref()) {
        (Some("paid"), _) => Some(false),
        (Some(_), _) => Some(true),
        (None, Some("cod")) => Some(false),
        (None, Some(_)) => Some(true),
        (None, None) => None,
    };
    (method, pending)
}

/// The line of a new order for `products[index]` (`OrderProductInput`): the product by id or
/// SKU (a variant's SKU gives the variant's price), or a 422 on its `identifier`.
pub(super) fn order_line(
    store: &mut Store,
    field: &str,
    input: &Value,
    errors: &mut FieldErrors,
) -> Option<Value> {
    let field = field.to_owned();
    let Some(identifier) = input.get("identifier").and_then(id_text_value) else {
        errors.add(field, required("identifier"));
        return None;
    };
    let by_sku = input.get("identifier_type").and_then(Value::as_str) == Some("sku");
    let found = if by_sku {
        store.records(PRODUCTS).iter().find_map(|p| {
            if p.get("sku").and_then(Value::as_str) == Some(identifier.as_str()) {
                return Some((p, None));
            }
            p.get("skus")
                .and_then(Value::as_array)?
                .iter()
                .find(|v| v.get("sku").and_then(Value::as_str) == Some(identifier.as_str()))
                .map(|v| (p, Some(v)))
        })
    } else {
        store.get(PRODUCTS, &identifier).map(|p| (p, None))
    };
    let Some((product, variant)) = found else {
        errors.add(field, selected_invalid("product"));
        return None;
    };
    // A price is kept as the service writes it: a number, a decimal string, or money (a
    // product created through the API keeps `{"amount", "currency"}`).
    let amount = |money: &Value| value_as_f64(money.get("amount").unwrap_or(money));
    let price = variant
        .and_then(|v| v.get("price"))
        .and_then(amount)
        .or_else(|| product.get("price").and_then(amount))
        .unwrap_or(0.0);
    let sku = variant
        .and_then(|v| v.get("sku"))
        .or_else(|| product.get("sku"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut line = json!({
        "product_id": product.get("id"),
        "name": product.get("name"),
        "sku": sku,
        "product_type": product.get("type").cloned().unwrap_or(Value::from("product")),
        "price": number(price),
        "quantity": input.get("quantity").and_then(Value::as_i64).unwrap_or(1),
    });
    if let Some(image) = product
        .get("image")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    {
        object_mut(&mut line).insert("thumbnail".into(), Value::from(image));
    }
    if let Some(options) = input.get("options").filter(|o| o.is_array()) {
        object_mut(&mut line).insert("options".into(), options.clone());
    }
    let id = store.new_id();
    object_mut(&mut line).insert("id".into(), Value::from(id));
    Some(line)
}

/// A reference number after every order's.
fn next_reference(store: &Store) -> i64 {
    store
        .records(ORDERS)
        .iter()
        .filter_map(|o| o.get("reference_id").and_then(Value::as_i64))
        .max()
        .unwrap_or(40_497_000)
        + 1
}

/// 422 when the orders collection is full.
fn check_room(call: &Call<'_>, store: &Store) -> Result<(), ApiError> {
    let cap = call.state.limits.collection_records;
    if store.records(ORDERS).len() >= cap {
        return Err(ApiError::unprocessable("body", collection_full(cap)));
    }
    Ok(())
}

/// `POST /orders` (`create_order`): an order of the body's products (by id or SKU, each of the
/// store) for the body's customer (one of the store's by id, else found or added by email or
/// mobile), waiting for its payment unless paid or paid on delivery; shipping costs the seed's
/// flat rate unless picked up or nothing is shippable. Answers the order's details.
pub(super) fn create_order(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    let mut store = call.state.write();
    let customer = match body.get("customer") {
        Some(input) => choose_customer(call, &mut store, input, &mut errors),
        None => None,
    };
    if customer.is_none() && errors.is_empty() && customers_key(call).is_some() {
        errors.required("customer");
    }
    let inputs: Vec<Value> = body
        .get("products")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if inputs.is_empty() {
        errors.required("products");
    }
    let lines: Vec<Value> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, input)| {
            order_line(
                &mut store,
                &format!("products.{i}.identifier"),
                input,
                &mut errors,
            )
        })
        .collect();
    let app_id = check_branch_and_courier(&store, &body, &mut errors).flatten();
    errors.finish()?;
    check_room(call, &store)?;
    let (customer_id, new_customer) = match customer {
        Some(customer) => settle_customer(call, &mut store, customer),
        None => (Value::Null, false),
    };
    let customer = customer_record(call, &store, &customer_id).unwrap_or(Value::Null);
    let (method, pending) = payment_of(body.get("payment"));
    let pending = pending.unwrap_or(true);
    let kind_of = |l: &Value| {
        l.get("product_type")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let shippable = lines
        .iter()
        .any(|l| kind_of(l).as_deref() == Some("product"));
    let digitalable = lines
        .iter()
        .any(|l| kind_of(l).as_deref() == Some("digital"));
    let picked_up = body.get("delivery_method").and_then(Value::as_str) == Some("pickup");
    let sub_total: f64 = lines
        .iter()
        .map(|l| {
            l.get("price").and_then(value_as_f64).unwrap_or(0.0)
                * l.get("quantity").and_then(Value::as_f64).unwrap_or(1.0)
        })
        .sum();
    let shipping = if shippable && !picked_up {
        SHIPPING_COST
    } else {
        0.0
    };
    let slug = if pending {
        "payment_pending"
    } else {
        "under_review"
    };
    let now = now_local();
    let id = store.new_id();
    let mut order = json!({
        "id": id,
        "reference_id": next_reference(&store),
        "total": money(((sub_total + shipping) * 100.0).round() / 100.0),
        "date": local_date(&now),
        "status": status_by_slug(&store, slug),
        "can_cancel": true,
        "can_reorder": true,
        "payment_method": method.unwrap_or_else(|| "waiting".to_owned()),
        "is_pending_payment": pending,
        "pending_payment_ends_at": if pending { PAYMENT_WINDOW_SECONDS } else { 0 },
        "features": { "digitalable": digitalable, "shippable": shippable },
        "items": lines,
        "created_at": now,
        "updated_at": now,
        "customer_id": customer_id,
        "country": customer.get("country_code").cloned().unwrap_or(Value::Null),
        "city": customer.get("city").cloned().unwrap_or(Value::Null),
        "branch": body.get("branch_id").cloned().unwrap_or(Value::Null),
        "tags": [],
        "coupon": Value::Null,
        "source": "dashboard",
        "shipping_app_id": app_id,
        "assign_employee": [],
        "unread": false,
        "unsent_to_accounting": true,
        "selling_channel": "desktop",
        "created_by": Value::Null,
    });
    if let Some(receiver) = body.get("receiver").and_then(receiver) {
        object_mut(&mut order).insert("receiver".into(), receiver);
    }
    agree_with_customer(call, &store, &mut order);
    store.insert(ORDERS, order.clone());
    let answer = details(&store, call.engine, &order);
    drop(store);
    if new_customer && !customer.is_null() {
        call.state
            .emit("customer.created", &crate::shape::strip_hidden(&customer));
    }
    call.state
        .emit("order.created", &crate::shape::strip_hidden(&order));
    Ok(Reply::Data(answer))
}

/// `POST /orders/draft` (`create_draft_order`): an empty order in the draft state, kept in the
/// orders collection like any order, so that `get_order` finds it, `create_order_item` fills it
/// (its lines priced from the store's products as they are then) and `update_order` gives it a
/// customer, a payment or a shipping company. The document says only that it is empty and
/// answers its id and reference number; the rest is what the service's dashboard shows of a new
/// draft: `draft: true` (the list shows it, newest first, as it shows every order), no lines, no
/// customer, a total of 0 in the store's currency, waiting for its payment (`payment_pending`,
/// `waiting`) and charged no shipping until it holds something to ship. No webhook event is
/// sent: a draft is not an order the customer placed.
pub(super) fn create_draft_order(call: &Call<'_>) -> Handled {
    let mut store = call.state.write();
    check_room(call, &store)?;
    let now = now_local();
    let id = store.new_id();
    let order = json!({
        "id": id,
        "reference_id": next_reference(&store),
        "draft": true,
        "total": money(0.0),
        "date": local_date(&now),
        "status": status_by_slug(&store, "payment_pending"),
        "can_cancel": true,
        "can_reorder": false,
        "payment_method": "waiting",
        "is_pending_payment": true,
        "pending_payment_ends_at": PAYMENT_WINDOW_SECONDS,
        "features": { "digitalable": false, "shippable": false },
        "items": [],
        "created_at": now,
        "updated_at": now,
        "customer_id": Value::Null,
        "tags": [],
        "coupon": Value::Null,
        "source": "dashboard",
        "assign_employee": [],
        "unread": false,
        "unsent_to_accounting": true,
        "selling_channel": "desktop",
        "created_by": Value::Null,
    });
    store.insert(ORDERS, order.clone());
    Ok(Reply::Data(order))
}

/// The order's `customer` is the customer its `customer_id` names, as the store holds it (as
/// the seed's orders have it), so that every read of an order made through the API shows its
/// customer (see [`crate::engine::crud::agree_with_named`]).
fn agree_with_customer(call: &Call<'_>, store: &Store, order: &mut Value) {
    if let Some(info) = call.engine.collections.get(ORDERS) {
        crate::engine::crud::agree_with_named(
            call.engine,
            store,
            &info.record_schemas,
            order,
            &call.body,
        );
    }
}

/// The collection of the employees an order is assigned to (`/orders/assignment/{order_id}`
/// lists them from the order's field `assign_employee`), as the engine found it.
fn employees_key<'a>(call: &'a Call<'_>) -> Option<&'a str> {
    call.engine
        .collections
        .values()
        .filter_map(|info| info.related.as_ref().zip(info.parent.as_ref()))
        .find(|(related, (parent, _))| {
            related.held
                && related.field == "assign_employee"
                && call.engine.real_key(parent) == ORDERS
        })
        .map(|(related, _)| call.engine.real_key(&related.source))
}

/// Each of `employees` must name an employee of the store (as the service's `exists` rule).
fn check_employees(
    call: &Call<'_>,
    store: &Store,
    employees: Option<&Value>,
    errors: &mut FieldErrors,
) {
    let (Some(key), Some(Value::Array(ids))) = (employees_key(call), employees) else {
        return;
    };
    for (at, id) in ids.iter().enumerate() {
        if id_text_value(id).is_none_or(|id| store.get(key, &id).is_none()) {
            errors.add(format!("employees.{at}"), selected_invalid("employee"));
        }
    }
}

/// `PUT /orders/{order_id}` (`update_order`): the body's changes (customer, receiver, payment,
/// coupon, employees, branch, shipping company) into the order; answers its details.
pub(super) fn update_order(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    let mut store = call.state.write();
    let (id, _) = path_order(call, &store)?;
    let customer = match body.get("customer") {
        Some(input) => choose_customer(call, &mut store, input, &mut errors),
        None => None,
    };
    let app_id = check_branch_and_courier(&store, &body, &mut errors);
    check_employees(call, &store, body.get("employees"), &mut errors);
    errors.finish()?;
    let customer = customer.map(|c| settle_customer(call, &mut store, c));
    let customer_record = customer
        .as_ref()
        .and_then(|(id, _)| customer_record(call, &store, id));
    let (method, pending) = payment_of(body.get("payment"));
    let Some(order) = store.get_mut(ORDERS, &id) else {
        return Err(ApiError::not_found());
    };
    let map = object_mut(order);
    if let Some((customer_id, _)) = &customer {
        map.insert("customer_id".into(), customer_id.clone());
    }
    if let Some(receiver) = body.get("receiver").and_then(receiver) {
        map.insert("receiver".into(), receiver);
    }
    if let Some(method) = method {
        map.insert("payment_method".into(), Value::from(method));
    }
    if let Some(pending) = pending {
        map.insert("is_pending_payment".into(), Value::Bool(pending));
        map.insert(
            "pending_payment_ends_at".into(),
            Value::from(if pending { PAYMENT_WINDOW_SECONDS } else { 0 }),
        );
    }
    if let Some(coupon) = body_text(body.get("coupon_code")) {
        map.insert("coupon".into(), Value::from(coupon));
    }
    if let Some(employees) = body.get("employees").filter(|e| e.is_array()) {
        map.insert("assign_employee".into(), employees.clone());
    }
    if let Some(branch) = body.get("branch_id").filter(|b| b.is_i64()) {
        map.insert("branch".into(), branch.clone());
    }
    if let Some(app_id) = app_id {
        map.insert(
            "shipping_app_id".into(),
            app_id.map_or(Value::Null, Value::from),
        );
    }
    map.insert("updated_at".into(), Value::from(now_local()));
    let mut order = order.clone();
    agree_with_customer(call, &store, &mut order);
    if let Some(stored) = store.get_mut(ORDERS, &id) {
        *stored = order.clone();
    }
    let answer = details(&store, call.engine, &order);
    drop(store);
    if let Some(customer) = customer_record.filter(|_| customer.as_ref().is_some_and(|c| c.1)) {
        call.state
            .emit("customer.created", &crate::shape::strip_hidden(&customer));
    }
    call.state
        .emit("order.updated", &crate::shape::strip_hidden(&order));
    Ok(Reply::Data(answer))
}

/// `POST /orders/duplicate` (`duplicate_order`): a new order with the same customer, products,
/// quantities, prices and total as `order_id` (422 when the store has no such order), waiting
/// for its payment. Answers its details.
pub(super) fn duplicate_order(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut store = call.state.write();
    let original = body
        .get("order_id")
        .and_then(id_text_value)
        .and_then(|id| store.get(ORDERS, &id))
        .cloned()
        .ok_or_else(|| ApiError::field("order_id", selected_invalid("order id")))?;
    check_room(call, &store)?;
    let id = store.new_id();
    let now = now_local();
    let mut order = original;
    let items: Vec<Value> = order
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut item| {
            let line = store.new_id();
            object_mut(&mut item).insert("id".into(), Value::from(line));
            item
        })
        .collect();
    let status = status_by_slug(&store, "payment_pending");
    let reference = next_reference(&store);
    let map = object_mut(&mut order);
    for (field, value) in [
        ("id", Value::from(id)),
        ("reference_id", Value::from(reference)),
        ("date", local_date(&now)),
        ("created_at", Value::from(now.clone())),
        ("updated_at", Value::from(now)),
        ("status", status),
        ("can_cancel", Value::Bool(true)),
        ("is_pending_payment", Value::Bool(true)),
        (
            "pending_payment_ends_at",
            Value::from(PAYMENT_WINDOW_SECONDS),
        ),
        ("items", Value::Array(items)),
        ("unread", Value::Bool(true)),
    ] {
        map.insert(field.into(), value);
    }
    // A copy is an order placed again, waiting for its payment: not a draft (the service's
    // dashboard "reorder" makes an order, as the seeded orders are), and its items are not
    // marked as put back in stock.
    map.remove("draft");
    map.remove(ITEMS_RESTORED);
    store.insert(ORDERS, order.clone());
    let answer = details(&store, call.engine, &order);
    drop(store);
    call.state
        .emit("order.created", &crate::shape::strip_hidden(&order));
    Ok(Reply::Data(answer))
}

/// The status record of the store that one of `wanted` names (by its id or its slug).
fn find_status(store: &Store, wanted: &[String]) -> Option<Value> {
    store
        .records(ORDER_STATUSES)
        .iter()
        .find(|s| {
            ["id", "slug"].iter().any(|f| {
                s.get(*f)
                    .and_then(id_text_value)
                    .is_some_and(|v| wanted.contains(&v))
            })
        })
        .cloned()
}

/// Moves order `order_id` to `status` (a status record of the store), as the service does: the
/// order's `status`; with `restore_items`, when the status cancels or restores it, its items back
/// in stock (the documentation: "for a cancellation or a return"), once per order, as the
/// service's dashboard restocks a cancelled order once; and an entry of the order's history with
/// the `note`. Answers the changed order (`None` when the store has no such order).
fn move_to_status(
    call: &Call<'_>,
    store: &mut Store,
    order_id: &str,
    status: &Value,
    restore_items: bool,
    note: Option<&str>,
) -> Option<Value> {
    let order_status = status_summary(status);
    let restores = restore_items
        && matches!(
            status.get("slug").and_then(Value::as_str),
            Some("canceled" | "restored")
        );
    let order = store.get_mut(ORDERS, order_id)?;
    object_mut(order).insert("status".into(), order_status.clone());
    let restock = restores && order.get(ITEMS_RESTORED) != Some(&Value::Bool(true));
    if restock {
        object_mut(order).insert(ITEMS_RESTORED.into(), Value::Bool(true));
    }
    let order = order.clone();
    if restock {
        for line in order
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            super::products::restore_line_stock(store, line);
        }
    }
    let note = note.filter(|n| !n.trim().is_empty());
    let histories = call.engine.real_key(ORDER_HISTORIES).to_owned();
    push_order_history(
        store,
        &histories,
        &order,
        &order_status,
        note,
        call.state.limits.collection_records,
    );
    Some(order)
}

/// `POST /orders/{order_id}/status` (`change_order_status`): the body names the status by
/// `status_id`, `status` or `slug`; an unknown one is a 422. Answers a confirmation message.
pub(super) fn change_order_status(call: &Call<'_>) -> Handled {
    let order_id = call.last_param().unwrap_or_default().trim().to_owned();
    let body = call.body_object();
    let wanted: Vec<String> = ["status_id", "status", "slug", "id"]
        .iter()
        .filter_map(|f| body.get(*f).and_then(id_text_value))
        .collect();
    let mut store = call.state.write();
    if store.get(ORDERS, &order_id).is_none() {
        return Err(ApiError::not_found());
    }
    let Some(status) = find_status(&store, &wanted) else {
        let field = ["status_id", "status", "slug"]
            .into_iter()
            .find(|f| body.contains_key(*f))
            .unwrap_or("status_id");
        return Err(ApiError::field(field, selected_invalid("status")));
    };
    let restore_items = body
        .get("restore_items")
        .and_then(crate::laravel::laravel_bool)
        == Some(true);
    let note = body.get("note").and_then(Value::as_str);
    let order = move_to_status(call, &mut store, &order_id, &status, restore_items, note)
        .ok_or_else(ApiError::not_found)?;
    drop(store);
    call.state
        .emit("order.status.updated", &crate::shape::strip_hidden(&order));
    Ok(Reply::Data(
        json!({ "message": "The order status has been updated successfully", "code": 201 }),
    ))
}

/// One action of `run_order_actions`, checked against the store.
enum OrderAction {
    /// `assign_users`: the orders are assigned to these employees (their ids).
    AssignUsers(Vec<Value>),
    /// `assign_tags`: these tags are added to the orders' tags.
    AssignTags(Vec<TagChoice>),
    /// `change_status`: the status record, `restore_items`, the note.
    ChangeStatus(Value, bool, Option<String>),
    /// `mark_as_read`.
    MarkAsRead,
    /// `delete`.
    Delete,
    /// An action that sends or prints something and changes no record the API reads.
    Other,
}

/// The ids `value` holds: an array of ids (or of `{id}` objects), or one id.
fn ids_of(value: Option<&Value>) -> Vec<Value> {
    let one = |v: &Value| match v {
        Value::Object(map) => map.get("id").cloned(),
        other => id_text_value(other).map(|_| other.clone()),
    };
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(one).collect(),
        Some(other) => one(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// A tag an `assign_tags` value names ("an array of ids or names").
enum TagChoice {
    /// A tag of the store, by id (a number, or a text of digits).
    Id(String),
    /// A tag by name: the store's tag of that name, or a new one.
    Name(String),
}

/// The tags `value` names: an array of ids, names, or `{id}`/`{name}` objects (or one of them).
/// Blank names name nothing.
fn tag_choices(value: Option<&Value>) -> Vec<TagChoice> {
    fn one(value: &Value) -> Option<TagChoice> {
        match value {
            Value::Number(n) => Some(TagChoice::Id(n.to_string())),
            Value::String(s) => {
                let s = s.trim();
                if s.is_empty() {
                    None
                } else if s.bytes().all(|b| b.is_ascii_digit()) {
                    Some(TagChoice::Id(s.to_owned()))
                } else {
                    Some(TagChoice::Name(s.to_owned()))
                }
            }
            Value::Object(map) => map.get("id").or_else(|| map.get("name")).and_then(one),
            _ => None,
        }
    }
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(one).collect(),
        Some(other) => one(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// The store's tag named `name` (compared trimmed, case-insensitively), if any.
fn tag_named<'s>(store: &'s Store, name: &str) -> Option<&'s Value> {
    store.records(TAGS).iter().find(|tag| {
        tag.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| n.trim().to_lowercase() == name.to_lowercase())
    })
}

/// Checks an `assign_tags` value (the action at `at`) against the store: each id must name one of
/// its tags, and the names it does not have must fit in the tags collection.
fn check_tags(
    store: &Store,
    choices: &[TagChoice],
    at: usize,
    cap: usize,
    errors: &mut FieldErrors,
) {
    if choices.is_empty() {
        errors.add(format!("operations.{at}.value"), required("value"));
    }
    let mut new_names: Vec<String> = Vec::new();
    for (index, choice) in choices.iter().enumerate() {
        match choice {
            TagChoice::Id(id) if store.get(TAGS, id).is_none() => {
                errors.add(
                    format!("operations.{at}.value.{index}"),
                    selected_invalid("tag"),
                );
            }
            TagChoice::Name(name)
                if tag_named(store, name).is_none()
                    && !new_names
                        .iter()
                        .any(|n| n.to_lowercase() == name.to_lowercase()) =>
            {
                new_names.push(name.clone());
            }
            _ => {}
        }
    }
    if !new_names.is_empty() && store.records(TAGS).len() + new_names.len() > cap {
        errors.add(format!("operations.{at}.value"), collection_full(cap));
    }
}

/// The ids of the tags `choices` names, in their order and once each; a name the store has no
/// tag of becomes a new tag of the store (as typing a new tag on the dashboard does).
fn resolve_tags(store: &mut Store, choices: &[TagChoice]) -> Vec<Value> {
    let mut ids: Vec<Value> = Vec::new();
    for choice in choices {
        let id = match choice {
            TagChoice::Id(id) => store.get(TAGS, id).and_then(|t| t.get("id")).cloned(),
            TagChoice::Name(name) => match tag_named(store, name) {
                Some(tag) => tag.get("id").cloned(),
                None => {
                    let id = store.new_id();
                    store.insert(TAGS, json!({ "id": id, "name": name }));
                    Some(Value::from(id))
                }
            },
        };
        if let Some(id) = id
            && !ids
                .iter()
                .any(|known| id_text_value(known) == id_text_value(&id))
        {
            ids.push(id);
        }
    }
    ids
}

/// Adds the tags `ids` to `order`'s tags (after those it has, none twice).
fn add_tags(order: &mut Value, ids: &[Value]) {
    let map = object_mut(order);
    let mut tags: Vec<Value> = map
        .get("tags")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for id in ids {
        if !tags.iter().any(|tag| {
            id_text_value(tag).or_else(|| tag.get("id").and_then(id_text_value))
                == id_text_value(id)
        }) {
            tags.push(id.clone());
        }
    }
    map.insert("tags".into(), Value::Array(tags));
    map.insert("updated_at".into(), Value::from(now_local()));
}

/// Whether `order`'s status is one of the status ids `wanted` (the store's status or the
/// original one it customizes).
fn in_statuses(order: &Value, wanted: &[String]) -> bool {
    let status = &order["status"];
    [&status["id"], &status["customized"]["id"]]
        .iter()
        .filter_map(|v| id_text_value(v))
        .any(|id| wanted.contains(&id))
}

/// `POST /orders/actions` (`run_order_actions`): each of `operations` on the orders `filters`
/// chooses (`order_ids`, and those in one of `order_status`), as the service's bulk actions on
/// its dashboard's orders list do: `assign_users` assigns them to the employees of `value` (what
/// `GET /orders/assignment/{order_id}` and the orders list's `assign_employee[]` then show),
/// `assign_tags` adds the tags of `value` (ids of the store's tags, or names: a name the store has
/// no tag of makes a new tag, as the dashboard's tag box does) to the orders' tags (what the
/// order's details and the orders list's `tags[]` filter then show; the tags they had are kept,
/// as the dashboard's bulk tagging adds), `change_status` moves them to `value.status` as `change_order_status` does (with its history
/// entry), `mark_as_read` and `delete` do what they say; the actions that print or send change
/// nothing the API reads. Nothing runs when one of them is refused (422: an order, an employee,
/// a tag id or a status the store does not have, or filters that choose no order). Answers one result per
/// operation.
pub(super) fn run_order_actions(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let filters = body.get("filters").cloned().unwrap_or(Value::Null);
    let operations = body
        .get("operations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut errors = FieldErrors::new();
    let mut store = call.state.write();
    let named = ids_of(filters.get("order_ids"));
    for (at, id) in named.iter().enumerate() {
        if id_text_value(id).is_none_or(|id| store.get(ORDERS, &id).is_none()) {
            errors.add(format!("filters.order_ids.{at}"), selected_invalid("order"));
        }
    }
    let named: Vec<String> = named.iter().filter_map(id_text_value).collect();
    let statuses: Vec<String> = ids_of(filters.get("order_status"))
        .iter()
        .filter_map(id_text_value)
        .collect();
    if named.is_empty() && statuses.is_empty() {
        errors.add("filters.order_ids", required("filters.order ids"));
    }
    let chosen: Vec<String> = store
        .records(ORDERS)
        .iter()
        .filter(|o| {
            crate::store::id_text(o).is_some_and(|id| named.is_empty() || named.contains(&id))
        })
        .filter(|o| statuses.is_empty() || in_statuses(o, &statuses))
        .filter_map(crate::store::id_text)
        .collect();
    let mut actions = Vec::new();
    for (at, operation) in operations.iter().enumerate() {
        let value = operation.get("value");
        let action = match operation.get("action_name").and_then(Value::as_str) {
            Some("assign_users") => {
                let employees = ids_of(value);
                if employees.is_empty() {
                    errors.add(format!("operations.{at}.value"), required("value"));
                }
                let mut found = FieldErrors::new();
                check_employees(
                    call,
                    &store,
                    Some(&Value::Array(employees.clone())),
                    &mut found,
                );
                if !found.is_empty() {
                    errors.add(
                        format!("operations.{at}.value"),
                        selected_invalid("employee"),
                    );
                }
                OrderAction::AssignUsers(employees)
            }
            Some("assign_tags") => {
                let choices = tag_choices(value);
                check_tags(
                    &store,
                    &choices,
                    at,
                    call.state.limits.collection_records,
                    &mut errors,
                );
                OrderAction::AssignTags(choices)
            }
            Some("change_status") => {
                let wanted: Vec<String> = ["status", "status_id", "slug"]
                    .iter()
                    .filter_map(|f| value.and_then(|v| v.get(*f)).and_then(id_text_value))
                    .collect();
                match find_status(&store, &wanted) {
                    Some(status) => OrderAction::ChangeStatus(
                        status,
                        value
                            .and_then(|v| v.get("restore_items"))
                            .and_then(crate::laravel::laravel_bool)
                            == Some(true),
                        value
                            .and_then(|v| v.get("note"))
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    ),
                    None => {
                        errors.add(
                            format!("operations.{at}.value.status"),
                            selected_invalid("status"),
                        );
                        OrderAction::Other
                    }
                }
            }
            Some("mark_as_read") => OrderAction::MarkAsRead,
            Some("delete") => OrderAction::Delete,
            _ => OrderAction::Other,
        };
        actions.push(action);
    }
    errors.finish()?;
    let mut changed: Vec<(String, Value)> = Vec::new();
    for action in &actions {
        let tag_ids = match action {
            OrderAction::AssignTags(choices) => resolve_tags(&mut store, choices),
            _ => Vec::new(),
        };
        for id in &chosen {
            match action {
                OrderAction::AssignUsers(employees) => {
                    if let Some(order) = store.get_mut(ORDERS, id) {
                        let map = object_mut(order);
                        map.insert("assign_employee".into(), Value::Array(employees.clone()));
                        map.insert("updated_at".into(), Value::from(now_local()));
                        changed.push(("order.updated".into(), order.clone()));
                    }
                }
                OrderAction::AssignTags(_) => {
                    if let Some(order) = store.get_mut(ORDERS, id) {
                        add_tags(order, &tag_ids);
                        changed.push(("order.updated".into(), order.clone()));
                    }
                }
                OrderAction::ChangeStatus(status, restore, note) => {
                    if let Some(order) =
                        move_to_status(call, &mut store, id, status, *restore, note.as_deref())
                    {
                        changed.push(("order.status.updated".into(), order));
                    }
                }
                OrderAction::MarkAsRead => {
                    if let Some(order) = store.get_mut(ORDERS, id) {
                        object_mut(order).insert("read".into(), Value::Bool(true));
                    }
                }
                OrderAction::Delete => {
                    if let Some(order) = store.records_mut(ORDERS).remove(id) {
                        changed.push(("order.deleted".into(), order));
                    }
                }
                OrderAction::Other => {}
            }
        }
    }
    let results: Vec<Value> = operations
        .iter()
        .map(|operation| {
            json!({
                "operation_id": store.new_id().to_string(),
                "action_name": operation.get("action_name").cloned().unwrap_or(Value::Null),
                "status": "success",
            })
        })
        .collect();
    drop(store);
    for (event, order) in changed {
        call.state.emit(&event, &crate::shape::strip_hidden(&order));
    }
    Ok(Reply::Data(Value::Array(results)))
}
