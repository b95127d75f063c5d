//! Which webhook events exist: the document's known values (`WebhookEventName`), or, where it
//! lists none, the events the mock emits. The one home of the list: the seed's event records,
//! the webhook overrides' check of a subscription and the admin routes read it here.

use crate::engine::Engine;

/// Events the overrides emit (beside the engine's `<thing>.created/updated/deleted`): where the
/// document lists no event names, these and the engine's are the ones a webhook may subscribe to.
pub(crate) const EMITTED_EVENTS: &[&str] = &[
    "customer.banned",
    "customer.unbanned",
    "order.status.updated",
    "product.updated",
    "shipment.creating",
    "shipment.created",
    "shipment.updated",
    "shipment.cancelled",
    "test",
];

/// The event names a webhook may subscribe to: the document's known values, or else the events
/// the mock emits (`created/updated/deleted` of each collection, and the overrides' own).
pub(crate) fn event_names(engine: &Engine) -> Vec<String> {
    if !engine.events.is_empty() {
        return engine.events.clone();
    }
    let mut names: Vec<String> = EMITTED_EVENTS.iter().map(|e| (*e).to_owned()).collect();
    let mut collections: Vec<&String> = engine
        .collections
        .values()
        .filter(|c| c.parent.is_none() && c.alias_of.is_none() && !c.singleton)
        .map(|c| &c.name)
        .collect();
    collections.sort();
    collections.dedup();
    for name in collections {
        for what in ["created", "updated", "deleted"] {
            let event = format!("{}.{what}", crate::engine::singular(name));
            if !names.contains(&event) {
                names.push(event);
            }
        }
    }
    names.sort();
    names
}
