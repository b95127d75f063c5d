//! Overrides: the few operations whose behaviour the document cannot say, each a small function
//! registered by `operationId`. The engine still routes them, checks scopes, query and body
//! against the document, and shapes their answers by the response schemas; an override only says
//! what changes in the store (a shipment's transitions, a webhook's subscription, an option's
//! variants, an order's status and its history, a transaction's refund, a language from the catalogue, a currency of the store, an
//! export's file, an import's records, a customer's ban), or how a record is answered (an order's details, projected from the record
//! the orders list summarizes).

mod currencies;
mod customers;
mod exports;
mod imports;
mod languages;
mod order_details;
mod order_items;
mod orders;
mod products;
mod shipments;
mod transactions;
mod webhooks;

use crate::engine::OverrideRow;

/// Every override, by `operationId`, with why it may refuse schema-valid data (422) where the
/// store's state or two fields at once decide.
pub(crate) fn registry() -> &'static [OverrideRow] {
    REGISTRY
}

const REGISTRY: &[OverrideRow] = &[
    OverrideRow::new("list_product_quantities", products::list_product_quantities),
    OverrideRow::refusing(
        "update_product_quantities",
        products::update_product_quantities,
        "a product with variants is stocked by its variants (as the dashboard does): naming it by \
         its own id is refused",
    ),
    OverrideRow::new(
        "update_product_variant_quantity",
        products::update_product_variant_quantity,
    ),
    OverrideRow::refusing(
        "create_product_option",
        products::create_product_option,
        "visibility on_condition needs visibility_condition_option and _value (two fields)",
    ),
    OverrideRow::new("get_product_variant", products::get_product_variant),
    OverrideRow::refusing(
        "add_languages",
        languages::add_languages,
        "the language must be in the catalogue and not added yet",
    ),
    OverrideRow::refusing(
        "activate_currencies",
        currencies::activate_currencies,
        "the currency must be one of the store's currencies",
    ),
    OverrideRow::new("export_orders", exports::export_orders),
    OverrideRow::new("export_customers", exports::export_customers),
    OverrideRow::new("export_products", exports::export_products),
    OverrideRow::new("import_customers", imports::import_customers),
    OverrideRow::new("import_products", imports::import_products),
    OverrideRow::new("ban_customer", customers::ban_customer),
    OverrideRow::new("unban_customer", customers::unban_customer),
    OverrideRow::new("get_order", orders::get_order),
    OverrideRow::refusing(
        "list_order_items",
        order_items::list_order_items,
        "order_id must name an order of the store",
    ),
    OverrideRow::refusing(
        "create_order_item",
        order_items::create_order_item,
        "order_id must name an order of the store, and identifier a product of it (by id or SKU, \
         by identifier_type)",
    ),
    OverrideRow::new("update_order_item", order_items::change_order_item),
    OverrideRow::new("delete_order_item", order_items::change_order_item),
    OverrideRow::refusing(
        "create_order",
        orders::create_order,
        "an order needs a customer and products: customer.id and each product's identifier \
         (an id or a SKU, by identifier_type) must name records of the store; courier_id must \
         name a shipping company",
    ),
    OverrideRow::new("create_draft_order", orders::create_draft_order),
    OverrideRow::refusing(
        "update_order",
        orders::update_order,
        "customer.id must name a customer of the store; courier_id must name a shipping company; \
         each of employees must name an employee of the store",
    ),
    OverrideRow::refusing(
        "duplicate_order",
        orders::duplicate_order,
        "order_id must name an order of the store",
    ),
    OverrideRow::refusing(
        "change_order_status",
        orders::change_order_status,
        "the status must exist in the store",
    ),
    OverrideRow::refusing(
        "run_order_actions",
        orders::run_order_actions,
        "filters must choose orders of the store (order_ids naming orders, or order_status); an \
         assign_users value must name employees of the store, an assign_tags value tags of the \
         store by id (a name the store has no tag of makes one, as the dashboard's tag box does: \
         the documentation says only \"an array of ids or names\"), a change_status value a \
         status of the store",
    ),
    OverrideRow::refusing(
        "list_shipments",
        shipments::list_shipments,
        "courier_slug must name a shipping company of the store",
    ),
    OverrideRow::refusing(
        "create_shipment",
        shipments::create_shipment,
        "the courier and the order must exist in the store",
    ),
    OverrideRow::refusing(
        "update_shipment",
        shipments::update_shipment,
        "the status must be a known shipment status",
    ),
    OverrideRow::refusing(
        "update_order_shipment",
        shipments::update_order_shipment,
        "the status must be a known shipment status",
    ),
    OverrideRow::refusing(
        "cancel_shipment",
        shipments::cancel_shipment,
        "a delivered shipment cannot be cancelled (the documentation says \"any existing \
         shipment\"; the service's dashboard offers a return, not a cancellation, once delivered)",
    ),
    OverrideRow::refusing(
        "cancel_order_shipment",
        shipments::cancel_order_shipment,
        "a delivered shipment cannot be cancelled (as cancel_shipment)",
    ),
    OverrideRow::refusing(
        "return_shipment",
        shipments::return_shipment,
        "only a delivered shipment can be returned",
    ),
    OverrideRow::new("get_shipment_tracking", shipments::get_shipment_tracking),
    OverrideRow::refusing(
        "update_transaction",
        transactions::update_transaction,
        "the transaction's status decides its actions, as on the service's dashboard (its \
         available_actions are generated data): a refund needs a paid or partly refunded \
         transaction and an amount above 0 up to what is left of its total, in its currency; a \
         void or a reverse needs one not refunded yet (initiated, pending or paid)",
    ),
    OverrideRow::refusing(
        "subscribe_webhook",
        webhooks::subscribe_webhook,
        "a signature strategy needs a secret (two fields); the event must be known; the rule must \
         parse and header keys and values must be valid HTTP headers",
    ),
    OverrideRow::refusing(
        "update_webhook",
        webhooks::update_webhook,
        "a signature strategy needs a secret, given now or before; the event must be known; the \
         rule must parse and header keys and values must be valid HTTP headers",
    ),
    OverrideRow::refusing(
        "unsubscribe_webhooks",
        webhooks::unsubscribe_webhooks,
        "id or url is required (two fields), and must name a webhook",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    /// Each override is registered under the operationId of the route it is written for (an
    /// operationId that names another route, or none, silently serves the wrong operation).
    #[test]
    fn overrides_are_registered_under_the_operations_they_implement() {
        let routes: &[(&str, &str, &str)] = &[
            ("list_product_quantities", "GET", "/products/quantities"),
            (
                "update_product_quantities",
                "POST",
                "/products/quantities/bulk",
            ),
            (
                "update_product_variant_quantity",
                "PUT",
                "/products/quantities/variant/{}",
            ),
            ("create_product_option", "POST", "/products/{}/options"),
            ("get_product_variant", "GET", "/products/variants/{}"),
            ("add_languages", "POST", "/languages"),
            ("activate_currencies", "POST", "/currencies"),
            ("export_orders", "GET", "/exports/orders"),
            ("export_customers", "POST", "/exports/customers"),
            ("export_products", "POST", "/exports/products"),
            ("ban_customer", "PUT", "/customers/blacklist/{}"),
            ("unban_customer", "DELETE", "/customers/blacklist/{}"),
            ("get_order", "GET", "/orders/{}"),
            ("list_order_items", "GET", "/orders/items"),
            ("create_order_item", "POST", "/orders/items"),
            ("update_order_item", "PUT", "/orders/items/{}"),
            ("delete_order_item", "DELETE", "/orders/items/{}"),
            ("create_order", "POST", "/orders"),
            ("create_draft_order", "POST", "/orders/draft"),
            ("update_order", "PUT", "/orders/{}"),
            ("duplicate_order", "POST", "/orders/duplicate"),
            ("change_order_status", "POST", "/orders/{}/status"),
            ("run_order_actions", "POST", "/orders/actions"),
            ("list_shipments", "GET", "/shipments"),
            ("create_shipment", "POST", "/shipments"),
            ("update_shipment", "PUT", "/shipments/{}"),
            ("update_order_shipment", "PUT", "/orders/{}/update-shipment"),
            ("cancel_shipment", "POST", "/shipments/{}/cancel"),
            (
                "cancel_order_shipment",
                "POST",
                "/orders/{}/cancel-shipment",
            ),
            ("return_shipment", "POST", "/shipments/{}/return"),
            ("get_shipment_tracking", "GET", "/shipments/{}/tracking"),
            ("update_transaction", "PUT", "/transactions/{}"),
            ("subscribe_webhook", "POST", "/webhooks/subscribe"),
            ("update_webhook", "PUT", "/webhooks/{}"),
            ("unsubscribe_webhooks", "DELETE", "/webhooks/unsubscribe"),
            ("import_customers", "POST", "/customers/import"),
            ("import_products", "POST", "/products/import"),
        ];
        let doc = Document::embedded().unwrap();
        let template = |path: &str| {
            path.split('/')
                .map(|s| if s.starts_with('{') { "{}" } else { s })
                .collect::<Vec<_>>()
                .join("/")
        };
        for row in registry() {
            let id = &row.operation_id;
            let op = doc
                .operations
                .iter()
                .find(|op| op.id == *id)
                .unwrap_or_else(|| panic!("{id} is not an operation of the document"));
            let (_, method, path) = routes
                .iter()
                .find(|(route_id, _, _)| route_id == id)
                .unwrap_or_else(|| panic!("{id}: no route known for it here"));
            assert_eq!(
                (op.method.as_str(), template(&op.path).as_str()),
                (*method, *path),
                "{id}"
            );
        }
    }

    /// The engine lists each override's own reason among the operations whose 422 for valid data
    /// depends on the store, and says which operations have a handler of their own.
    #[test]
    fn the_engine_lists_each_overrides_state_rule_and_handler() {
        let engine = crate::engine::Engine::for_document(Document::embedded().unwrap(), registry());
        let rules = engine.state_rules();
        for row in registry() {
            assert!(engine.overridden(row.operation_id), "{}", row.operation_id);
            if let Some(why) = row.state_rule {
                assert!(
                    rules
                        .iter()
                        .any(|(id, reasons)| id == row.operation_id && reasons.contains(why)),
                    "{}: its state rule is not listed",
                    row.operation_id
                );
            }
        }
        assert!(!engine.overridden("list_orders"));
        assert!(!engine.overridden("no_such_operation"));
    }
}
