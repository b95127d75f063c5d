//! Exports every order as NDJSON on standard output, pages fetched concurrently, in order:
//! `cargo run -p store-admin --example export_orders > orders.ndjson`.

mod common;

use std::io::Write;

use futures::TryStreamExt;
use store_admin::prelude::*;
use store_admin::{PageOptions, Paginate};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (admin, _mock) = common::connect().await?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut orders = admin
        .list_orders()
        .sort_by("id-asc")
        .items(PageOptions::default().per_page(60).concurrency(4));
    let mut count = 0usize;
    while let Some(order) = orders.try_next().await? {
        serde_json::to_writer(&mut out, &order)?;
        out.write_all(b"\n")?;
        count += 1;
    }
    out.flush()?;
    eprintln!("exported {count} orders");
    Ok(())
}
