//! Exports: background jobs. The call only confirms the job (as the service does, in the
//! request's language); the file appears in the export logs (`GET /exports/logs`, newest first)
//! once the job has run for [`crate::Limits::background_job`].

use serde_json::{Value, json};

use crate::engine::Call;
use crate::language::Text;
use crate::respond::{Handled, Reply};
use crate::store::now_local;

/// The export logs' collection.
const EXPORT_LOGS: &str = "/exports/logs";

/// `GET /exports/orders`: the orders of a period.
pub(super) fn export_orders(call: &Call<'_>) -> Handled {
    let format = call.query.one("format").unwrap_or("xlsx").to_owned();
    start(call, "orders", &format)
}

/// `POST /exports/customers`: the customers, or a sample file.
pub(super) fn export_customers(call: &Call<'_>) -> Handled {
    let kind = text(call, "type").unwrap_or_else(|| "customers".into());
    start(call, &kind.replace('-', "_"), "xlsx")
}

/// `POST /exports/products`: product data (`products`, `prices`, ...) or a sample file; logged
/// as `products`, or `product_<type>` (`product_prices`, the type the documentation shows).
pub(super) fn export_products(call: &Call<'_>) -> Handled {
    let kind = text(call, "type").unwrap_or_else(|| "products".into());
    let format = text(call, "format").unwrap_or_else(|| "xlsx".into());
    let logged = match kind.as_str() {
        "products" => "products".to_owned(),
        other => format!("product_{}", other.replace('-', "_")),
    };
    start(call, &logged, &format)
}

fn text(call: &Call<'_>, field: &str) -> Option<String> {
    call.body
        .get(field)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Starts the job: after the configured time, the export's log entry (its type, when, where to
/// download the file, who) is listed first.
fn start(call: &Call<'_>, kind: &str, format: &str) -> Handled {
    let state = call.state.clone();
    let delay = call.state.limits.background_job;
    let kind = kind.to_owned();
    let format = if format == "csv" { "csv" } else { "xlsx" };
    let job = call.state.write().new_id();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let entry = json!({
            "type": kind,
            "created_at": now_local(),
            "url": format!("https://cdn.store.example/exports/{kind}-{job}.{format}"),
            "user": {"id": 1, "name": "API"},
        });
        state.write().records_mut(EXPORT_LOGS).insert_oldest(entry);
    });
    let message = Text::new(
        "The file is being processed and will take some time",
        "يتم حالياً معالجة الملف وسوف يستغرق بعض الوقت",
    );
    Ok(Reply::Data(json!({ "message": message.get(call.lang) })))
}
