//! The details of an order (`OrderDetails`: what `get_order` answers, and the creation, update and
//! duplication of an order), projected from the order's record, the one the list summarizes
//! (`Order`), and from the records it points at: its customer (`customer_id`), its products, its
//! latest shipment, its tags and, for a bank transfer, a bank account of the store.
//!
//! The details keep the list's facts (id, reference, status, date, payment method, items and
//! quantities) and say them in the details' shape: the total is `amounts.total` (the list's
//! `total`), with its parts: `sub_total` is the sum of the lines (prices include the 15% VAT,
//! which `tax` tells), `shipping_cost` the rest. What the list has no field for (the checkout id,
//! the addresses of the order's pages, the device it was placed from) is derived from the order's
//! id, so it is the same on every read.

use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::fake::stable_hash;
use crate::formats::{CURRENCY, local_date, number};
use crate::seed::tables::keys::{PRODUCTS, SHIPMENTS, SHIPPING_COMPANIES, TAGS};
use crate::store::{Store, id_text_value, value_as_f64};

/// The VAT rate the prices include, in percent.
const VAT_PERCENT: f64 = 15.0;
/// Weight of one unit of a physical product, in kg (the seed's variants weigh as much).
const UNIT_WEIGHT_KG: f64 = 0.5;

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// An id of 9 to 10 digits derived from `parts`.
fn derived_id(parts: &[&str]) -> i64 {
    100_000_000 + (stable_hash(parts) % 2_047_483_647) as i64
}

/// A 24-character token derived from the order id, as the order pages' addresses carry.
fn token(order_id: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    (0..24)
        .map(|i| {
            let hash = stable_hash(&["order-token", order_id, &i.to_string()]);
            char::from(ALPHABET[(hash % ALPHABET.len() as u64) as usize])
        })
        .collect()
}

fn amount_of(money: Option<&Value>) -> Option<f64> {
    let money = money?;
    money
        .get("amount")
        .map_or_else(|| value_as_f64(money), value_as_f64)
}

/// The collection of a kind of record, where the document has one (`customer_id` gives the
/// customers).
fn collection_of<'e>(engine: &'e Engine, field: &str) -> Option<&'e str> {
    engine
        .collection_for_field(field)
        .map(|c| engine.real_key(&c.key))
}

/// The details of `order` (a record of the orders collection).
pub(super) fn details(store: &Store, engine: &Engine, order: &Value) -> Value {
    let id = order.get("id").and_then(id_text_value).unwrap_or_default();
    let token = token(&id);
    let pending = order
        .get("is_pending_payment")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let can_cancel = order
        .get("can_cancel")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let can_reorder = order
        .get("can_reorder")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let currency = order
        .pointer("/total/currency")
        .and_then(Value::as_str)
        .unwrap_or(CURRENCY)
        .to_owned();
    let date = order.get("date").cloned().unwrap_or(Value::Null);
    let updated_at = match order.get("updated_at") {
        Some(Value::String(at)) => local_date(at),
        _ => date.clone(),
    };
    let device = if stable_hash(&["order-device", &id]).is_multiple_of(3) {
        "mobile"
    } else {
        "desktop"
    };

    let items: Vec<Value> = order
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(index, item)| line_item(store, &id, index, item, &currency))
        .collect();
    let sub_total = round2(
        items
            .iter()
            .filter_map(|i| amount_of(i.pointer("/amounts/total")))
            .sum(),
    );
    let tax = round2(
        items
            .iter()
            .filter_map(|i| amount_of(i.pointer("/amounts/tax/amount")))
            .sum(),
    );
    let total_value = order
        .get("total")
        .cloned()
        .unwrap_or_else(|| json!({ "amount": number(sub_total), "currency": currency }));
    let total = amount_of(Some(&total_value)).unwrap_or(sub_total);
    let weight: f64 = items
        .iter()
        .map(|i| {
            let unit = i.get("weight").and_then(value_as_f64).unwrap_or(0.0);
            let quantity = i.get("quantity").and_then(Value::as_f64).unwrap_or(0.0);
            unit * quantity
        })
        .sum();

    let mut urls = json!({
        "customer": format!("https://store.example/order/{token}"),
        "admin": format!("https://s.example/orders/order/{token}"),
        "digital_content": format!("https://store.example/order/{token}/digital"),
        "rating": format!("https://store.example/order/{token}/rating"),
    });
    if pending && let Some(map) = urls.as_object_mut() {
        map.insert(
            "checkout".into(),
            Value::from(format!("https://store.example/checkout/{token}")),
        );
    }

    let mut features = order
        .get("features")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for flag in [
        "multiple_shipments_supported",
        "order_type_price_quote",
        "has_suspicious_alert",
    ] {
        features.entry(flag).or_insert(Value::Bool(false));
    }

    let customer = customer(store, engine, order);
    let shipment = latest_shipment(store, order);
    let receiver = match order.get("receiver") {
        Some(receiver @ Value::Object(_)) => receiver.clone(),
        _ => match &shipment {
            Some(shipment) => person(shipment.get("ship_to")),
            None => customer.as_ref().map_or(Value::Null, customer_as_receiver),
        },
    };

    let mut out = Map::new();
    let mut put = |name: &str, value: Value| {
        if !value.is_null() {
            out.insert(name.to_owned(), value);
        }
    };
    put("id", order.get("id").cloned().unwrap_or(Value::Null));
    put(
        "checkout_id",
        Value::from(derived_id(&["order-checkout", &id])),
    );
    put(
        "reference_id",
        order.get("reference_id").cloned().unwrap_or(Value::Null),
    );
    put("features", Value::Object(features));
    put(
        "actions",
        json!({ "cancellable": can_cancel, "reorderable": can_reorder, "payable": pending }),
    );
    put("urls", urls);
    put("date", date.clone());
    put("updated_at", updated_at);
    put(
        "source",
        order.get("source").cloned().unwrap_or(Value::Null),
    );
    put(
        "draft",
        Value::Bool(order.get("draft").and_then(Value::as_bool).unwrap_or(false)),
    );
    put(
        "read",
        Value::Bool(
            !order
                .get("unread")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        ),
    );
    put(
        "source_details",
        json!({
            "type": "direct",
            "value": Value::Null,
            "device": device,
            "user-agent": if device == "mobile" {
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
            } else {
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36"
            },
            "ip": format!(
                "188.54.{}.{}",
                stable_hash(&["order-ip", &id]) % 256,
                1 + stable_hash(&["order-ip-host", &id]) % 254
            ),
        }),
    );
    put(
        "status",
        order.get("status").cloned().unwrap_or(Value::Null),
    );
    put("is_price_quote", Value::Bool(false));
    put(
        "payment_method",
        order.get("payment_method").cloned().unwrap_or(Value::Null),
    );
    put("currency", Value::from(currency.clone()));
    put(
        "amounts",
        json!({
            "sub_total": { "amount": number(sub_total), "currency": currency },
            "shipping_cost": { "amount": number(round2((total - sub_total).max(0.0))), "currency": currency },
            "cash_on_delivery": { "amount": 0, "currency": currency },
            "tax": {
                "percent": format!("{VAT_PERCENT:.2}"),
                "amount": { "amount": number(tax), "currency": currency },
            },
            "discounts": [],
            "total": total_value,
        }),
    );
    put(
        "exchange_rate",
        order.get("exchange_rate").cloned().unwrap_or(Value::Null),
    );
    put("can_cancel", Value::Bool(can_cancel));
    put("show_weight", Value::Bool(true));
    put("can_reorder", Value::Bool(can_reorder));
    put("is_pending_payment", Value::Bool(pending));
    put(
        "pending_payment_ends_at",
        order
            .get("pending_payment_ends_at")
            .cloned()
            .unwrap_or(Value::from(0)),
    );
    if pending {
        put("pending_payment_start_at", date);
    }
    put(
        "total_weight",
        Value::from(format!("{} كجم", round2(weight))),
    );
    put("receiver", receiver);
    put(
        "shipping",
        shipment.map_or(Value::Null, |s| shipping(store, &s)),
    );
    put("customer", customer.unwrap_or(Value::Null));
    put("items", Value::Array(items));
    put(
        "bank",
        if order.get("payment_method").and_then(Value::as_str) == Some("bank") {
            bank(store, engine, &id)
        } else {
            Value::Null
        },
    );
    put("tags", tags(store, order));
    // `bank` is null (not absent) when the order was not paid by a bank transfer.
    out.entry("bank").or_insert(Value::Null);
    Value::Object(out)
}

/// An order line with its details: the product it was ordered as (from the line), its price and
/// totals, and the product's card (from the product's record, as it is now).
fn line_item(store: &Store, order_id: &str, index: usize, item: &Value, currency: &str) -> Value {
    let name = item.get("name").cloned().unwrap_or(Value::Null);
    let product = item
        .get("product_id")
        .and_then(id_text_value)
        .and_then(|id| store.get(PRODUCTS, &id))
        .or_else(|| {
            let name = name.as_str()?;
            store
                .records(PRODUCTS)
                .iter()
                .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        });
    let price = item
        .get("price")
        .and_then(value_as_f64)
        .or_else(|| product.and_then(|p| amount_of(p.get("price"))))
        .unwrap_or(0.0);
    let quantity = item.get("quantity").and_then(Value::as_i64).unwrap_or(1);
    let kind = item
        .get("product_type")
        .and_then(Value::as_str)
        .or_else(|| product.and_then(|p| p.get("type")).and_then(Value::as_str))
        .unwrap_or("product")
        .to_owned();
    let sku = item
        .get("sku")
        .filter(|s| s.is_string())
        .or_else(|| product.and_then(|p| p.get("sku")).filter(|s| s.is_string()))
        .cloned()
        .unwrap_or(Value::Null);
    let thumbnail = item
        .get("thumbnail")
        .filter(|t| t.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    let id = item
        .get("id")
        .cloned()
        .filter(Value::is_i64)
        .unwrap_or_else(|| Value::from(derived_id(&["order-item", order_id, &index.to_string()])));
    let product_id = item
        .get("product_id")
        .cloned()
        .or_else(|| product.and_then(|p| p.get("id")).cloned())
        .unwrap_or(Value::Null);
    let line_total = round2(price * quantity as f64);
    let without_tax = round2(price * 100.0 / (100.0 + VAT_PERCENT));
    let tax = round2(line_total - without_tax * quantity as f64);
    // The line's own weight and unit (sent with it), else the product's, else half a kilogram
    // for a physical product.
    let weight = item
        .get("weight")
        .and_then(value_as_f64)
        .or_else(|| product.and_then(|p| p.get("weight")).and_then(value_as_f64))
        .unwrap_or(if kind == "product" {
            UNIT_WEIGHT_KG
        } else {
            0.0
        });
    let weight_type = item
        .get("weight_type")
        .or_else(|| product.and_then(|p| p.get("weight_type")))
        .and_then(Value::as_str)
        .filter(|unit| !unit.trim().is_empty())
        .unwrap_or("kg")
        .to_owned();
    let money_in = |amount: f64| json!({ "amount": number(amount), "currency": currency });

    let mut card = Map::new();
    card.insert("id".into(), product_id);
    card.insert("type".into(), Value::from(kind.clone()));
    card.insert(
        "promotion".into(),
        json!({ "title": Value::Null, "sub_title": Value::Null }),
    );
    card.insert("name".into(), name.clone());
    if sku.is_string() {
        card.insert("sku".into(), sku.clone());
    }
    let current_price = product
        .and_then(|p| amount_of(p.get("price")))
        .unwrap_or(price);
    card.insert("price".into(), money_in(current_price));
    card.insert("regular_price".into(), money_in(current_price));
    card.insert("sale_price".into(), money_in(0.0));
    card.insert("has_special_price".into(), Value::Bool(false));
    card.insert("currency".into(), Value::from(currency));
    if let Some(product) = product {
        let unlimited = product
            .get("unlimited_quantity")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let stock = product.get("quantity").and_then(Value::as_i64);
        card.insert(
            "quantity".into(),
            if unlimited {
                Value::Null
            } else {
                stock.map_or(Value::Null, Value::from)
            },
        );
        let available = unlimited || stock.is_some_and(|s| s > 0);
        card.insert(
            "status".into(),
            Value::from(if available { "sale" } else { "out" }),
        );
        card.insert("is_available".into(), Value::Bool(available));
        if let Some(product_id) = product.get("id").and_then(id_text_value) {
            card.insert(
                "url".into(),
                Value::from(format!("https://store.example/p{product_id}")),
            );
        }
    }
    if thumbnail.is_string() {
        card.insert("thumbnail".into(), thumbnail.clone());
    }
    for field in ["calories", "mpn", "gtin", "favorite", "starting_price"] {
        card.insert(field.into(), Value::Null);
    }
    card.insert("features".into(), json!({ "availability_notify": false }));

    let mut line = json!({
        "id": id,
        "name": name,
        "sku": sku,
        "quantity": quantity,
        "currency": currency,
        "weight": number(weight),
        "weight_label": if weight_type == "kg" {
            format!("{weight} كجم")
        } else {
            format!("{weight} {weight_type}")
        },
        "weight_type": weight_type,
        "product_type": kind,
        "mpn": Value::Null,
        "gtin": Value::Null,
        "amounts": {
            "price_without_tax": money_in(without_tax),
            "total_discount": money_in(0.0),
            "tax": { "percent": format!("{VAT_PERCENT:.2}"), "amount": money_in(tax) },
            "total": money_in(line_total),
        },
        "notes": "",
        "product": Value::Object(card),
        "options": line_options(product, item, currency),
        "images": [],
        "codes": [],
        "files": [],
        "reservations": [],
    });
    if let Some(map) = line.as_object_mut() {
        if thumbnail.is_string() {
            map.insert("product_thumbnail".into(), thumbnail);
        }
        if sku.is_null() {
            map.remove("sku");
        }
    }
    line
}

/// The options chosen on a line as its details show them: each by the product option's id, with
/// the option's name and type where the product has it, and each value by its id (with its name
/// and price) when it is one of the option's values, else as the text entered.
fn line_options(product: Option<&Value>, item: &Value, currency: &str) -> Value {
    let chosen = item.get("options").and_then(Value::as_array);
    let options: Vec<Value> = chosen
        .into_iter()
        .flatten()
        .map(|option| {
            let Some(id) = option.get("id").and_then(id_text_value) else {
                return option.clone();
            };
            let known = product
                .and_then(|p| p.get("options"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|o| o.get("id").and_then(id_text_value).as_deref() == Some(id.as_str()));
            let values: Vec<Value> = option
                .get("value")
                .map(|v| match v {
                    Value::Array(values) => values.clone(),
                    single => vec![single.clone()],
                })
                .unwrap_or_default()
                .into_iter()
                .map(|value| {
                    if value.is_object() {
                        return value;
                    }
                    let text = id_text_value(&value).unwrap_or_default();
                    let of_option = known
                        .and_then(|o| o.get("values"))
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .find(|v| v.get("id").and_then(id_text_value).as_deref() == Some(&text));
                    match of_option {
                        Some(known) => json!({
                            "id": known.get("id"),
                            "name": known.get("name"),
                            "price": {
                                "amount": number(amount_of(known.get("price")).unwrap_or(0.0)),
                                "currency": currency,
                            },
                        }),
                        None => json!({ "name": text }),
                    }
                })
                .collect();
            let mut shown = Map::new();
            shown.insert(
                "id".into(),
                option.get("id").cloned().unwrap_or(Value::Null),
            );
            shown.insert(
                "product_option_id".into(),
                option.get("id").cloned().unwrap_or(Value::Null),
            );
            if let Some(known) = known {
                for field in ["name", "type"] {
                    if let Some(value) = known.get(field).filter(|v| v.is_string()) {
                        shown.insert(field.into(), value.clone());
                    }
                }
            }
            shown.insert("value".into(), Value::Array(values));
            Value::Object(shown)
        })
        .collect();
    Value::Array(options)
}

/// The order's customer: the record of the customers collection its `customer_id` names (only
/// its id when that record is gone).
fn customer(store: &Store, engine: &Engine, order: &Value) -> Option<Value> {
    let id = order.get("customer_id").and_then(id_text_value)?;
    let record = collection_of(engine, "customer_id").and_then(|key| store.get(key, &id));
    Some(match record {
        Some(record) => record.clone(),
        None => json!({ "id": order.get("customer_id") }),
    })
}

fn customer_as_receiver(customer: &Value) -> Value {
    let text = |field: &str| {
        customer
            .get(field)
            .and_then(id_text_value)
            .unwrap_or_default()
    };
    let name = format!("{} {}", text("first_name"), text("last_name"))
        .trim()
        .to_owned();
    let phone = format!("{}{}", text("mobile_code"), text("mobile"));
    let mut receiver = Map::new();
    for (field, value) in [("name", name), ("email", text("email")), ("phone", phone)] {
        if !value.is_empty() {
            receiver.insert(field.into(), Value::from(value));
        }
    }
    Value::Object(receiver)
}

/// `{name, email, phone}` of a shipment's address.
fn person(address: Option<&Value>) -> Value {
    let mut out = Map::new();
    for field in ["name", "email", "phone"] {
        if let Some(value) = address
            .and_then(|a| a.get(field))
            .and_then(id_text_value)
            .filter(|v| !v.is_empty())
        {
            out.insert(field.into(), Value::from(value));
        }
    }
    Value::Object(out)
}

/// The order's latest shipment (a delivery rather than a return, and one not cancelled, where
/// it has one).
fn latest_shipment(store: &Store, order: &Value) -> Option<Value> {
    let id = order.get("id").and_then(id_text_value)?;
    store
        .records(SHIPMENTS)
        .iter()
        .enumerate()
        .filter(|(_, s)| s.get("order_id").and_then(id_text_value).as_deref() == Some(&id))
        .max_by_key(|(at, s)| {
            (
                s.get("type").and_then(Value::as_str) != Some("return"),
                s.get("status").and_then(Value::as_str) != Some("cancelled"),
                *at,
            )
        })
        .map(|(_, s)| s.clone())
}

/// An address of a shipment as the order's shipping shows it.
fn shipping_address(address: Option<&Value>) -> Value {
    let mut out = Map::new();
    let Some(address) = address.and_then(Value::as_object) else {
        return Value::Object(out);
    };
    for (to, from) in [
        ("country", "country"),
        ("country_code", "country_code"),
        ("city", "city"),
        ("shipping_address", "address_line"),
        ("street_number", "street_number"),
        ("block", "block"),
        ("postal_code", "postal_code"),
    ] {
        if let Some(value) = address.get(from).and_then(id_text_value) {
            out.insert(to.into(), Value::from(value));
        }
    }
    if let (Some(lat), Some(lng)) = (address.get("latitude"), address.get("longitude")) {
        out.insert("geo_coordinates".into(), json!({ "lat": lat, "lng": lng }));
    }
    Value::Object(out)
}

/// The order's shipping (the deprecated full details' `shipping`), from its shipment.
fn shipping(store: &Store, shipment: &Value) -> Value {
    let courier = shipment.get("courier_id").cloned().unwrap_or(Value::Null);
    let app_id = courier
        .as_i64()
        .and_then(|c| store.get(SHIPPING_COMPANIES, &c.to_string()))
        .and_then(|c| c.get("app_id"))
        .and_then(id_text_value)
        .and_then(|a| a.parse::<i64>().ok());
    let ship_from = shipment.get("ship_from");
    let mut shipper = person(ship_from);
    if let (Some(map), Some(name)) = (
        shipper.as_object_mut(),
        ship_from
            .and_then(|f| f.get("company_name").or_else(|| f.get("name")))
            .and_then(id_text_value),
    ) {
        map.insert("company_name".into(), Value::from(name));
    }
    let number = ["shipping_number", "tracking_number"]
        .iter()
        .filter_map(|f| shipment.get(*f))
        .find(|n| match n {
            Value::String(s) => !s.is_empty() && s != "0",
            Value::Number(n) => n.as_i64() != Some(0),
            _ => false,
        })
        .or_else(|| shipment.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    let label = match shipment.get("label") {
        Some(label @ Value::Object(_)) => label.clone(),
        _ => Value::Null,
    };
    let policy_options = match shipment.pointer("/meta/policy_options/boxes") {
        Some(boxes) => json!([{ "boxes": boxes }]),
        None => json!([]),
    };
    json!({
        "id": courier,
        "app_id": app_id,
        "company": shipment.get("courier_name"),
        "logo": shipment.get("courier_logo"),
        "receiver": person(shipment.get("ship_to")),
        "shipper": shipper,
        "pickup_address": shipping_address(ship_from),
        "address": shipping_address(shipment.get("ship_to")),
        "shipment": {
            "id": number,
            "pickup_id": shipment.get("pickup_id").cloned().unwrap_or(Value::Null),
            "tracking_link": shipment.get("tracking_link").cloned().unwrap_or(Value::Null),
            "label": label,
        },
        "policy_options": policy_options,
        "shipment_reference": Value::Null,
        "branch_id": ship_from.and_then(|f| f.get("branch_id")).cloned().unwrap_or(Value::Null),
    })
}

/// The order's tags, by id and name.
fn tags(store: &Store, order: &Value) -> Value {
    let tags: Vec<Value> = order
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tag| {
            let id = id_text_value(tag).or_else(|| tag.get("id").and_then(id_text_value))?;
            let name = store
                .get(TAGS, &id)
                .and_then(|t| t.get("name"))
                .or_else(|| tag.get("name"))
                .cloned()?;
            Some(json!({ "id": id.parse::<i64>().ok()?, "name": name }))
        })
        .collect();
    Value::Array(tags)
}

/// For an order paid by bank transfer: a bank account of the store (one of the payment banks,
/// an active one where there is one, the same for the same order).
fn bank(store: &Store, engine: &Engine, order_id: &str) -> Value {
    let Some(key) = collection_of(engine, "bank_id") else {
        return Value::Null;
    };
    let all: Vec<&Value> = store.records(key).iter().collect();
    let active: Vec<&Value> = all
        .iter()
        .copied()
        .filter(|b| b.get("status").and_then(Value::as_str) == Some("active"))
        .collect();
    let banks = if active.is_empty() { all } else { active };
    if banks.is_empty() {
        return Value::Null;
    }
    let pick = stable_hash(&["order-bank", order_id]) as usize % banks.len();
    banks[pick].clone()
}
