//! Registers, lists, updates and removes a webhook, with a rule built by the typed rule builder
//! and the signature security strategy: `cargo run -p store-admin --example manage_webhooks`.

mod common;

use store_admin::prelude::*;
use store_admin::types;
use store_admin::webhooks::{OrderRuleAttribute, Rule};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (admin, _mock) = common::connect().await?;

    let events = admin.list_webhook_events().call().await?;
    println!(
        "{} events can be subscribed to, e.g. {}",
        events.data.len(),
        events.data[0].event
    );

    // `total > 100 OR payment_method = \`cod\``, rendered with the service's rule syntax.
    let rule = Rule::attr(OrderRuleAttribute::Total.as_str())
        .gt(100)
        .or(Rule::attr(OrderRuleAttribute::PaymentMethod.as_str()).eq("cod"))
        .render()?;
    let created = admin
        .subscribe_webhook()
        .body(
            types::SubscribeWebhookRequest::builder()
                .name("Big or cash orders")
                .event("order.created".to_string())
                .url("https://hooks.example.com/orders")
                .version(std::num::NonZeroU64::new(2))
                .rule(Some(rule.clone()))
                .security_strategy(types::SecurityStrategy(Some(
                    types::SecurityStrategyInner::Signature,
                )))
                .secret(Some("a-long-random-secret".to_string())),
        )
        .call()
        .await?;
    println!(
        "registered webhook {} for {} with rule {rule}",
        created.data.id, created.data.event
    );

    let updated = admin
        .update_webhook()
        .id(created.data.id)
        .body(
            types::UpdateWebhookRequest::builder()
                .name(Some("Big or cash orders (v2)".to_string()))
                .headers(vec![
                    types::WebhookHeader::builder()
                        .key("X-Team")
                        .value("fulfilment")
                        .try_into()?,
                ]),
        )
        .call()
        .await?;
    println!(
        "renamed it to {:?}, custom headers {:?}",
        updated.data.name, updated.data.headers
    );

    let listed = admin.list_webhooks().call().await?;
    println!("{} webhooks are active", listed.data.len());

    let removed = admin
        .unsubscribe_webhooks()
        .id(created.data.id)
        .call()
        .await?;
    println!("removed: {:?}", removed.data.message);
    Ok(())
}
