//! Starts the embedded mock store on 127.0.0.1 and drives it through `StoreAdmin`: typed calls with
//! filters, a concurrent export of every page, a validation error. No credentials needed.
//!
//! ```sh
//! cargo run -p store-admin --example quickstart
//! ```

use futures::TryStreamExt;
use store_admin::prelude::*;
use store_admin::{PageOptions, Paginate, StoreAdmin, types};
use store_admin_mock::{MockConfig, MockServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = MockServer::start(MockConfig::new().token_all_scopes("quickstart-token")).await?;
    println!("mock store listening on {}", server.base_url());

    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("quickstart-token")
        .build()?;

    // One typed call with filters.
    let page = admin
        .list_product_quantities()
        .per_page(5u64)
        .call()
        .await?;
    // A list the service sends without `pagination` is still a page: its rows alone.
    match &page.pagination {
        Some(pagination) => println!(
            "\nproduct quantities: page {} of {} ({} rows in all)",
            pagination.current_page, pagination.total_pages, pagination.total
        ),
        None => println!("\nproduct quantities: {} rows", page.data.len()),
    }
    for row in &page.data {
        println!(
            "  {:>12}  {:<40} qty {:>5}  price {}",
            row.id,
            truncate(
                &format!("{} {}", row.name, row.variant.as_deref().unwrap_or("")),
                40
            ),
            if row.unlimited_quantity {
                "∞".to_string()
            } else {
                row.quantity.to_string()
            },
            row.price
        );
    }

    // Every order, all pages fetched concurrently, items in order.
    let orders: Vec<types::Order> = admin
        .list_orders()
        .items(PageOptions::default().per_page(60).concurrency(4))
        .try_collect()
        .await?;
    let mut by_status = std::collections::BTreeMap::<String, usize>::new();
    for order in &orders {
        *by_status.entry(order.status.slug.to_string()).or_default() += 1;
    }
    println!("\nexported {} orders:", orders.len());
    for (slug, count) in &by_status {
        println!("  {slug:<16} {count}");
    }

    // A validation error, as a service sees it.
    let bad = types::AddLanguagesRequest::builder().locales(vec![
        types::LocaleInput::builder()
            .iso_code("not-a-language")
            .try_into()?,
    ]);
    match admin.add_languages().body(bad).call().await {
        Err(e) => println!("\nadding a bad language fails as expected:\n  {e}"),
        Ok(_) => println!("\nunexpected: the bad language was accepted"),
    }
    Ok(())
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max - 1).chain(['…']).collect()
    }
}
