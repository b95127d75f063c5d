//! The typed rows of the seed tables, and the JSON record each becomes.

use secrecy::{ExposeSecret, SecretString};
use serde_json::{Map, Value, json};

use crate::formats::{CURRENCY, local_date, money, money_string, number};

#[derive(Debug, Clone)]
pub(crate) struct Product {
    pub id: i64,
    pub name: String,
    /// `product`, `service`, `digital`...: only `product` gets variants from new options.
    pub kind: &'static str,
    pub image: Option<String>,
    pub sku: Option<String>,
    pub quantity: i64,
    pub sold_quantity: i64,
    pub price: f64,
    /// Render the amount of `price` as `"127.00"` rather than `127` (the service does both; the
    /// quantities list shows the bare amount).
    pub price_as_string: bool,
    pub unlimited_quantity: bool,
    pub categories: Vec<i64>,
    pub brand: Option<i64>,
    pub tags: Vec<i64>,
    pub branches: Vec<i64>,
    pub options: Vec<ProductOption>,
    pub variants: Vec<Variant>,
}

#[derive(Debug, Clone)]
pub(crate) struct ProductOption {
    pub id: i64,
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
    pub sort: Option<i64>,
    pub display_type: String,
    pub visibility: String,
    pub values: Vec<OptionValue>,
}

#[derive(Debug, Clone)]
pub(crate) struct OptionValue {
    pub id: i64,
    pub name: String,
    pub price: f64,
    pub option_id: i64,
    pub image_url: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Variant {
    pub id: i64,
    /// Render `sku_id` as a string in the quantities list (the spec says the sample data does);
    /// shaping answers it as an integer where the document declares one.
    pub sku_id_as_string: bool,
    pub price: f64,
    pub regular_price: f64,
    pub sale_price: f64,
    pub cost_price: f64,
    pub stock_quantity: i64,
    pub barcode: String,
    pub sku: String,
    pub related_option_values: Vec<i64>,
    pub weight: f64,
}

impl Product {
    /// The price as the service writes a product's: money in the store's currency (its amount a
    /// number or a decimal string).
    fn price_value(&self, amount: f64) -> Value {
        let amount = if self.price_as_string {
            Value::from(format!("{amount:.2}"))
        } else {
            number(amount)
        };
        json!({ "amount": amount, "currency": CURRENCY })
    }

    /// The product's record: its fields, its options and its variants (`skus`).
    pub fn to_record(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "type": self.kind,
            "image": self.image,
            "sku": self.sku,
            "quantity": self.quantity,
            "sold_quantity": self.sold_quantity,
            "price": self.price_value(self.price),
            "unlimited_quantity": self.unlimited_quantity,
            "categories": self.categories,
            "brand": self.brand,
            "tags": self.tags,
            "branches": self.branches,
            "options": self.options.iter().map(ProductOption::to_json).collect::<Vec<_>>(),
            "skus": self.variants.iter().map(Variant::to_record).collect::<Vec<_>>(),
        })
    }
}

impl ProductOption {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "type": "radio",
            "required": self.required,
            "associated_with_order_time": 0,
            "sort": self.sort,
            "display_type": self.display_type,
            "visibility": self.visibility,
            "values": self.values.iter().map(OptionValue::to_json).collect::<Vec<_>>(),
        })
    }
}

impl OptionValue {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "price": money(self.price),
            "display_value": self.name,
            "option_id": self.option_id,
            "image_url": self.image_url,
            "hashed_display_value": self.name,
        })
    }
}

impl Variant {
    /// The variant's record: what its details and an option's `skus` show, and whether the
    /// quantities list shows its id as a string (the sample data does).
    pub fn to_record(&self) -> Value {
        json!({
            "id": self.id,
            "__sku_id_as_string": self.sku_id_as_string,
            "price": money(self.price),
            "regular_price": money(self.regular_price),
            "sale_price": money(self.sale_price),
            "cost_price": money(self.cost_price),
            "stock_quantity": self.stock_quantity,
            "barcode": self.barcode,
            "sku": self.sku,
            "related_option_values": self.related_option_values,
            "weight": number(self.weight),
            "weight_type": "kg",
            "weight_label": format!("{} كجم", self.weight),
        })
    }
}

/// A named thing with an id: brand, tag, branch, customer group.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub id: i64,
    pub name: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Category {
    pub id: i64,
    pub name: String,
    pub parent_id: i64,
    pub status: String,
    pub sort_order: i64,
    pub metadata_title: String,
    pub metadata_description: String,
    pub metadata_url: String,
}

impl Category {
    pub fn to_json(&self, children: &[&Category]) -> Value {
        let slug = self.name.to_lowercase().replace(' ', "-");
        json!({
            "id": self.id,
            "name": self.name,
            "urls": {
                "customer": format!("https://store.example/{slug}/c{}", self.id),
                "admin": format!("https://s.example/categories/{}", self.id),
            },
            "sort_order": self.sort_order,
            "items": children.iter().map(|c| c.to_json(&[])).collect::<Vec<_>>(),
            "parent_id": (self.parent_id != 0).then_some(self.parent_id),
            "status": self.status,
            "metadata": {
                "title": self.metadata_title,
                "description": self.metadata_description,
                "url": self.metadata_url,
            },
        })
    }
}

#[derive(Debug, Clone)]
pub(crate) struct OrderStatus {
    pub id: i64,
    pub name: String,
    pub slug: &'static str,
    pub sort: i64,
    pub message: String,
    pub is_active: bool,
    pub parent: Option<(i64, String)>,
    pub original: (i64, String),
    /// Whether the merchant renamed it.
    pub customized: bool,
}

impl OrderStatus {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "type": if self.customized { "custom" } else { "original" },
            "slug": self.slug,
            "sort": self.sort,
            "message": self.message,
            "icon": "sicon-packed-box",
            "is_active": self.is_active,
            "parent": self.parent.as_ref().map(|(id, name)| json!({"id": id, "name": name})),
            "original": { "id": self.original.0, "name": self.original.1 },
        })
    }
}

/// A line of an order: the product as it was when ordered (the details answer its price and
/// totals; the list shows its name, quantity and thumbnail).
#[derive(Debug, Clone)]
pub(crate) struct OrderItem {
    /// The order item id.
    pub id: i64,
    pub product_id: i64,
    pub name: String,
    pub sku: Option<String>,
    /// The product's type (`product`, `service`, `digital`).
    pub kind: &'static str,
    /// The unit price when ordered, tax included.
    pub price: f64,
    pub quantity: i64,
    pub thumbnail: Option<String>,
}

impl OrderItem {
    /// The line as the order's record holds it: the list's fields (`name`, `quantity`,
    /// `thumbnail`) and what the details need (`id`, `product_id`, `price`, `sku`,
    /// `product_type`), which the list's schema does not declare.
    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "id": self.id,
            "product_id": self.product_id,
            "name": self.name,
            "sku": self.sku,
            "product_type": self.kind,
            "price": number(self.price),
            "quantity": self.quantity,
        });
        if let (Some(thumb), Some(map)) = (&self.thumbnail, value.as_object_mut()) {
            map.insert("thumbnail".into(), Value::from(thumb.clone()));
        }
        value
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Order {
    pub id: i64,
    pub reference_id: i64,
    pub total: f64,
    pub exchange_rate: Option<f64>,
    pub created_at: String,
    pub status_id: i64,
    pub payment_method: String,
    pub is_pending_payment: bool,
    pub digitalable: bool,
    pub shippable: bool,
    pub items: Vec<OrderItem>,
    pub customer_id: i64,
    pub branch_id: i64,
    pub tags: Vec<i64>,
    pub country: String,
    pub city: String,
    pub coupon_code: Option<String>,
    pub source: String,
    pub shipping_company_id: Option<i64>,
    pub employee_ids: Vec<i64>,
    pub unread: bool,
    pub sent_to_accounting: bool,
    pub channel: String,
    pub created_by: Option<i64>,
}

impl Order {
    /// The order's record: the service's fields, and the fields its list filters read (named
    /// as the document's query parameters: `customer_id`, `branch`, `coupon`, ...).
    pub fn to_record(&self, status: Option<&OrderStatus>, shipping_app_id: Option<i64>) -> Value {
        let mut record = self.to_json(status);
        if let Some(map) = record.as_object_mut() {
            let filters = json!({
                "created_at": self.created_at,
                "customer_id": self.customer_id,
                "country": self.country,
                "city": self.city,
                "branch": self.branch_id,
                "tags": self.tags,
                "coupon": self.coupon_code,
                "source": self.source,
                "shipping_app_id": shipping_app_id,
                "assign_employee": self.employee_ids,
                "unread": self.unread,
                "unsent_to_accounting": !self.sent_to_accounting,
                "selling_channel": self.channel,
                "created_by": self.created_by,
            });
            if let Value::Object(filters) = filters {
                map.extend(filters);
            }
        }
        record
    }

    pub fn to_json(&self, status: Option<&OrderStatus>) -> Value {
        let mut order = json!({
            "id": self.id,
            "reference_id": self.reference_id,
            "total": money(self.total),
            "date": local_date(&self.created_at),
            "status": status.map(|s| json!({
                "id": s.original.0,
                "name": s.original.1,
                "slug": s.slug,
                "customized": { "id": s.id, "name": s.name },
            })),
            "can_cancel": matches!(status.map(|s| s.slug), Some("payment_pending" | "under_review")),
            "can_reorder": true,
            "payment_method": self.payment_method,
            "is_pending_payment": self.is_pending_payment,
            "pending_payment_ends_at": if self.is_pending_payment { 86_400 } else { 0 },
            "features": { "digitalable": self.digitalable, "shippable": self.shippable },
            "items": self.items.iter().map(OrderItem::to_json).collect::<Vec<_>>(),
        });
        if let (Some(rate), Some(map)) = (self.exchange_rate, order.as_object_mut()) {
            map.insert(
                "exchange_rate".into(),
                json!({ "base_currency": CURRENCY, "exchange_currency": "USD", "rate": rate }),
            );
        }
        order
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Reservation {
    pub id: i64,
    pub title: String,
    pub kind: &'static str,
    pub start: String,
    pub end: String,
    pub seats: i64,
    /// Also render the seat count as `seats_count` (the sample data does).
    pub with_seats_count: bool,
    pub order_token: String,
    pub created_at: String,
}

impl Reservation {
    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "id": self.id,
            "title": self.title,
            "type": self.kind,
            "start": self.start,
            "end": self.end,
            "weight": self.seats,
            "url": format!("https://s.example/orders/order/{}", self.order_token),
            "created_at": self.created_at,
        });
        if self.with_seats_count
            && let Some(map) = value.as_object_mut()
        {
            map.insert("seats_count".into(), Value::from(self.seats));
        }
        value
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ShippingCompany {
    pub id: i64,
    pub name: String,
    pub app_id: String,
    pub manual: bool,
    pub slug: String,
}

impl ShippingCompany {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "app_id": self.app_id,
            "activation_type": if self.manual { "manual" } else { "api" },
            "slug": if self.manual { Value::Null } else { Value::from(self.slug.clone()) },
        })
    }

    /// The company's record (its slug kept for the `courier_slug` filter of shipments).
    pub fn to_record(&self) -> Value {
        let mut record = self.to_json();
        if let Some(map) = record.as_object_mut() {
            map.insert("__slug".into(), Value::from(self.slug.clone()));
            map.insert("__logo".into(), Value::from(self.logo()));
        }
        record
    }

    pub fn logo(&self) -> String {
        format!("https://cdn.example/shipping/{}.png", self.slug)
    }
}

/// A shipping rule restriction: (type, condition, value).
pub(crate) type Restriction = (String, Option<String>, Value);

#[derive(Debug, Clone)]
pub(crate) struct ShippingRule {
    pub id: i64,
    pub title: String,
    pub status: String,
    pub company_ids: Vec<i64>,
    pub restrictions: Vec<Restriction>,
}

impl ShippingRule {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "shipping_companies_ids": self.company_ids,
            "restrictions": self.restrictions.iter().map(|(kind, condition, value)| json!({
                "type": kind, "condition": condition, "value": value,
            })).collect::<Vec<_>>(),
        })
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Language {
    pub id: i64,
    pub name: String,
    pub rtl: bool,
    pub iso_code: String,
    pub country_code: String,
    pub sort_order: i64,
}

impl Language {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "status": "enabled",
            "rtl": self.rtl,
            "flag": format!("https://assets.example/images/flags/{}.svg", self.country_code),
            "iso_code": self.iso_code,
            "country_code": self.country_code,
            "sort_order": self.sort_order,
        })
    }
}

/// A shipment: the fields the mock changes are typed, the rest is kept as rendered JSON.
#[derive(Debug, Clone)]
pub(crate) struct Shipment {
    pub id: i64,
    pub order_id: i64,
    pub order_reference_id: i64,
    pub created_at: String,
    pub kind: String,
    pub courier_id: i64,
    pub courier_name: String,
    pub courier_logo: String,
    pub shipping_number: Value,
    pub tracking_number: Value,
    pub tracking_link: String,
    pub pickup_id: Option<i64>,
    pub payment_method: String,
    pub status: String,
    pub total: f64,
    pub cash_on_delivery: f64,
    pub policy_options: Value,
    pub ship_from: Value,
    pub ship_to: Value,
    pub packages: Vec<Value>,
    pub history: Vec<(String, String, String)>,
    pub description: Option<String>,
    pub remarks: Option<String>,
    pub label_url: Option<String>,
    pub external_company_name: Option<String>,
    pub cost: Option<f64>,
}

impl Shipment {
    fn label(&self) -> Value {
        match &self.label_url {
            Some(url) => json!({ "format": "pdf", "url": url }),
            None => json!([]),
        }
    }

    /// The shipment's record: its answer, and its status history for the tracking view.
    pub fn to_record(&self) -> Value {
        let mut record = self.to_json();
        if let Some(map) = record.as_object_mut() {
            if let Some(cost) = self.cost {
                map.insert("__cost".into(), json!(cost));
            }
            map.insert(
                "__history".into(),
                json!(
                    self.history
                        .iter()
                        .map(|(s, n, at)| json!([s, n, at]))
                        .collect::<Vec<_>>()
                ),
            );
        }
        record
    }

    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "order_id": self.order_id,
            "order_reference_id": self.order_reference_id,
            "created_at": local_date(&self.created_at),
            "type": self.kind,
            "courier_id": self.courier_id,
            "courier_name": self.courier_name,
            "courier_logo": self.courier_logo,
            "shipping_number": self.shipping_number,
            "tracking_number": self.tracking_number,
            "pickup_id": self.pickup_id,
            "trackable": true,
            "tracking_link": self.tracking_link,
            "label": self.label(),
            "payment_method": self.payment_method,
            "source": "api",
            "status": self.status,
            "total": money(self.total),
            "cash_on_delivery": money_string(self.cash_on_delivery),
            "meta": { "app_id": Value::Null, "policy_options": self.policy_options },
            "ship_from": self.ship_from,
            "ship_to": self.ship_to,
            "packages": self.packages,
            "description": self.description,
            "remarks": self.remarks,
            "external_company_name": self.external_company_name,
        })
    }
}

/// A registered webhook.
#[derive(Clone)]
pub(crate) struct Webhook {
    pub id: i64,
    pub name: String,
    pub event: String,
    pub version: i64,
    pub rule: Option<String>,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub strategy: Option<String>,
    pub secret: Option<SecretString>,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("id", &self.id)
            .field("event", &self.event)
            .field("url", &self.url)
            .field("version", &self.version)
            .field("strategy", &self.strategy)
            .finish_non_exhaustive()
    }
}

impl Webhook {
    pub fn to_json(&self) -> Value {
        let headers: Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.clone())))
            .collect();
        json!({
            "id": self.id,
            "name": self.name,
            "event": self.event,
            "version": self.version,
            "rule": self.rule,
            "url": self.url,
            "headers": headers,
            "type": "manual",
            "security": {
                "strategy": self.strategy.clone().unwrap_or_default(),
                "secret": self.secret.as_ref().map(|s| s.expose_secret().to_owned()),
            },
        })
    }
}
