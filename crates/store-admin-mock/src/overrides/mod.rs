//! Overrides: the few operations whose behaviour the document cannot say, each a small function
//! registered by `operationId`. The engine still routes them, checks scopes, query and body
//! against the document, and shapes their answers by the response schemas; an override only says
//! what changes in the store (a shipment's transitions, a webhook's subscription, an option's
//! variants, an order's status, a language from the catalogue).

mod languages;
mod orders;
mod products;
mod shipments;
mod webhooks;

use crate::engine::Override;

/// Every override, by `operationId`.
pub(crate) fn registry() -> &'static [(&'static str, Override)] {
    &[
        ("list_product_quantities", products::list_product_quantities),
        ("create_product_option", products::create_product_option),
        ("get_product_variant", products::get_product_variant),
        ("add_languages", languages::add_languages),
        ("update_order_status", orders::update_order_status),
        ("list_shipments", shipments::list_shipments),
        ("create_shipment", shipments::create_shipment),
        ("update_shipment", shipments::update_shipment),
        ("update_order_shipment", shipments::update_order_shipment),
        ("cancel_shipment", shipments::cancel_shipment),
        ("cancel_order_shipment", shipments::cancel_order_shipment),
        ("return_shipment", shipments::return_shipment),
        ("get_shipment_tracking", shipments::get_shipment_tracking),
        ("subscribe_webhook", webhooks::subscribe_webhook),
        ("update_webhook", webhooks::update_webhook),
        ("unsubscribe_webhooks", webhooks::unsubscribe_webhooks),
    ]
}

/// Events the overrides emit (beside the engine's `<thing>.created/updated/deleted`): where the
/// document lists no event names, these and the engine's are the ones a webhook may subscribe to.
pub(crate) const EMITTED_EVENTS: &[&str] = &[
    "order.status.updated",
    "product.updated",
    "shipment.creating",
    "shipment.created",
    "shipment.updated",
    "shipment.cancelled",
    "test",
];

/// Operations whose 422 for schema-valid data depends on the store's state or on two fields at
/// once, with the reason: what `.ci/mock-checks` tells schemathesis (`GET /` lists them).
pub(crate) const STATE_RULES: &[(&str, &str)] = &[
    (
        "create_shipment",
        "the courier and the order must exist in the store",
    ),
    (
        "update_shipment",
        "the status must be a known shipment status",
    ),
    (
        "update_order_shipment",
        "the status must be a known shipment status",
    ),
    (
        "return_shipment",
        "only a delivered shipment can be returned",
    ),
    (
        "list_shipments",
        "courier_slug must name a shipping company of the store",
    ),
    (
        "create_product_option",
        "visibility on_condition needs visibility_condition_option and _value (two fields)",
    ),
    (
        "add_languages",
        "the language must be in the catalogue and not added yet",
    ),
    (
        "subscribe_webhook",
        "a signature strategy needs a secret (two fields); the event must be known",
    ),
    (
        "update_webhook",
        "a signature strategy needs a secret, given now or before",
    ),
    (
        "unsubscribe_webhooks",
        "id or url is required (two fields), and must name a webhook",
    ),
    ("update_order_status", "the status must exist in the store"),
];
