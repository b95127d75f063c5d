//! The columns a table shows of each record type the service returns. CSV and JSON show every
//! field; a table shows the few a person scans for.

use store_admin::types;

use crate::output::Record;

macro_rules! columns {
    ($($ty:ident => [$(($header:literal, $pointer:literal)),* $(,)?]),* $(,)?) => {
        $(
            impl Record for types::$ty {
                const COLUMNS: &'static [(&'static str, &'static str)] = &[$(($header, $pointer)),*];
            }
        )*
    };
}

columns! {
    ProductQuantity => [
        ("ID", "/id"), ("NAME", "/name"), ("VARIANT", "/variant"), ("SKU", "/sku"),
        ("QUANTITY", "/quantity"), ("UNLIMITED", "/unlimited_quantity"), ("SOLD", "/sold_quantity"),
        ("PRICE", "/price"),
    ],
    ProductVariant => [
        ("ID", "/id"), ("SKU", "/sku"), ("PRICE", "/price"), ("SALE PRICE", "/sale_price"),
        ("STOCK", "/stock_quantity"), ("BARCODE", "/barcode"),
    ],
    ProductOption => [
        ("ID", "/id"), ("NAME", "/name"), ("DISPLAY", "/display_type"), ("REQUIRED", "/required"),
        ("VISIBILITY", "/visibility"),
    ],
    Order => [
        ("ID", "/id"), ("REFERENCE", "/reference_id"), ("DATE", "/date"), ("STATUS", "/status"),
        ("TOTAL", "/total"), ("PAYMENT", "/payment_method"),
    ],
    OrderDetails => [
        ("ID", "/id"), ("REFERENCE", "/reference_id"), ("DATE", "/date"), ("STATUS", "/status"),
        ("TOTAL", "/amounts/total"), ("PAYMENT", "/payment_method"),
    ],
    OrderStatus => [
        ("ID", "/id"), ("NAME", "/name"), ("SLUG", "/slug"), ("TYPE", "/type"),
        ("PARENT", "/parent/name"), ("ACTIVE", "/is_active"), ("SORT", "/sort"),
    ],
    Reservation => [
        ("ID", "/id"), ("TYPE", "/type"), ("TITLE", "/title"), ("START", "/start"), ("END", "/end"),
        ("SEATS", "/seats_count"),
    ],
    Shipment => [
        ("ID", "/id"), ("ORDER", "/order_id"), ("TYPE", "/type"), ("STATUS", "/status"),
        ("COURIER", "/courier_name"), ("TRACKING", "/tracking_number"), ("TOTAL", "/total"),
        ("CREATED", "/created_at"),
    ],
    ShipmentTracking => [
        ("ID", "/id"), ("ORDER", "/order_id"), ("STATUS", "/status"), ("COURIER", "/courier_name"),
        ("TRACKING", "/tracking_number"),
    ],
    ShippingCompany => [
        ("ID", "/id"), ("NAME", "/name"), ("SLUG", "/slug"), ("ACTIVATION", "/activation_type"),
        ("APP", "/app_id"),
    ],
    ShippingRule => [
        ("ID", "/id"), ("TITLE", "/title"), ("STATUS", "/status"),
        ("COMPANIES", "/shipping_companies_ids"),
    ],
    ShippingRouteSummary => [
        ("ID", "/id"), ("NAME", "/name"), ("TYPE", "/type"), ("PRIORITY", "/priority"),
        ("STRATEGY", "/strategy"), ("ACTIVE", "/status"),
    ],
    ShippingRoute => [
        ("ID", "/id"), ("NAME", "/name"), ("TYPE", "/type"), ("PRIORITY", "/priority"),
        ("ACTIVE", "/status"),
    ],
    Language => [
        ("ID", "/id"), ("ISO", "/iso_code"), ("NAME", "/name"), ("STATUS", "/status"),
        ("RTL", "/rtl"), ("SORT", "/sort_order"),
    ],
    Category => [
        ("ID", "/id"), ("NAME", "/name"), ("PARENT", "/parent_id"), ("STATUS", "/status"),
        ("SORT", "/sort_order"),
    ],
    Webhook => [
        ("ID", "/id"), ("NAME", "/name"), ("EVENT", "/event"), ("URL", "/url"),
        ("VERSION", "/version"), ("SECURITY", "/security/strategy"), ("RULE", "/rule"),
    ],
    WebhookEvent => [("EVENT", "/event"), ("LABEL", "/label"), ("ID", "/id")],
    MessageResult => [("CODE", "/code"), ("MESSAGE", "/message")],
}
