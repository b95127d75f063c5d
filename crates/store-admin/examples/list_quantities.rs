//! Lists product quantities with filters: `cargo run -p store-admin --example list_quantities -- [KEYWORD]`.

mod common;

use futures::TryStreamExt;
use store_admin::prelude::*;
use store_admin::{PageOptions, Paginate, types};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (admin, _mock) = common::connect().await?;
    let keyword = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Charger".to_string());

    // Filters are set once on the generated builder and carried to every page.
    let rows: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .keyword(keyword.clone())
        .items(PageOptions::default().per_page(60))
        .try_collect()
        .await?;
    println!("{} rows match {keyword:?}", rows.len());
    let low: Vec<_> = rows
        .iter()
        .filter(|r| !r.unlimited_quantity && r.quantity < 50)
        .collect();
    println!("{} of them are low on stock (< 50):", low.len());
    for row in low.iter().take(10) {
        println!(
            "  {:>12} {:<30} {:<16} qty {:>4}",
            row.id,
            row.name,
            row.variant.as_deref().unwrap_or("-"),
            row.quantity
        );
    }
    Ok(())
}
