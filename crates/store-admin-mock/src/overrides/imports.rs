//! Imports: background jobs, as exports are. The call only confirms the upload (in the request's
//! language); once the job has run for [`crate::Limits::background_job`], the file's rows are in
//! the store: a customer per row of `POST /customers/import`; for `POST /products/import`, a
//! product per row of a `products` file, and for the other types the fields of the row set on the
//! product of its `sku` (a `quantities` file's `quantity`, a `prices` file's `price`...).
//!
//! The service takes spreadsheets (Excel); the mock reads the file as CSV with a header line whose
//! names are the records' fields (`first_name,last_name,email,mobile`; `sku,name,price,quantity`).
//! A file it cannot read that way (an Excel file) imports nothing, as a file of no rows would. A
//! numeric cell is stored as a number, as the service's spreadsheet reader gives it.

use serde_json::{Map, Value, json};

use crate::engine::Call;
use crate::engine::complete::in_service_form;
use crate::language::Text;
use crate::respond::{Handled, Reply};
use crate::store::now_local;

const CUSTOMERS: &str = "/customers";
const PRODUCTS: &str = "/products";

/// `POST /customers/import`: a row of an email the store has updates that customer.
pub(super) fn import_customers(call: &Call<'_>) -> Handled {
    start(call, CUSTOMERS, Rows::Create, "email")
}

/// `POST /products/import`: `products` creates, every other type updates by `sku`.
pub(super) fn import_products(call: &Call<'_>) -> Handled {
    let kind = call
        .body
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("products");
    let rows = if kind == "products" {
        Rows::Create
    } else {
        Rows::UpdateBy
    };
    start(call, PRODUCTS, rows, "sku")
}

/// What the rows of a file do.
#[derive(Clone, Copy)]
enum Rows {
    /// Each row is a new record (or updates the record of the same `key`, if any).
    Create,
    /// Each row updates the record of the same `key`; a row naming none is skipped.
    UpdateBy,
}

/// The rows of a CSV file as records' fields (none when it is not CSV with a header).
fn read_rows(file: &[u8]) -> Vec<Map<String, Value>> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(file);
    let Ok(headers) = reader.headers().cloned() else {
        return Vec::new();
    };
    reader
        .records()
        .map_while(Result::ok)
        .map(|row| {
            headers
                .iter()
                .zip(row.iter())
                .filter(|(name, _)| !name.trim().is_empty())
                .map(|(name, cell)| {
                    let cell = cell.trim();
                    let value = match cell.parse::<i64>() {
                        Ok(n) if !cell.starts_with('0') || cell == "0" => Value::from(n),
                        _ => match cell.parse::<f64>() {
                            Ok(x) if x.is_finite() && !cell.starts_with('0') => json!(x),
                            _ => Value::from(cell),
                        },
                    };
                    (name.trim().to_owned(), value)
                })
                .collect()
        })
        .collect()
}

/// Confirms the upload and starts the job.
fn start(call: &Call<'_>, key: &'static str, rows: Rows, match_by: &'static str) -> Handled {
    let file = call
        .files
        .iter()
        .find(|(name, _)| name == "file")
        .map(|(_, bytes)| bytes.clone())
        .unwrap_or_default();
    let state = call.state.clone();
    let delay = call.state.limits.background_job;
    let real = call.engine.real_key(key).to_owned();
    // A row's money (a `prices` file's `price`) is kept as the service writes it, with the
    // store's currency, and its dates in the store's time zone, as a create's are.
    let doc = call.engine.doc.clone();
    let schemas: Vec<Value> = [key, real.as_str()]
        .iter()
        .filter_map(|k| call.engine.collections.get(*k))
        .flat_map(|c| c.record_schemas.iter().cloned())
        .collect();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let mut store = state.write();
        for row in read_rows(&file) {
            let existing = row.get(match_by).and_then(|wanted| {
                store
                    .records(&real)
                    .iter()
                    .find(|r| r.get(match_by) == Some(wanted))
                    .and_then(crate::store::id_text)
            });
            let now = now_local();
            // (The store's generation moves on with the write: cached answers are not served.)
            match (existing, rows) {
                (Some(id), _) => {
                    if let Some(record) = store.get_mut(&real, &id)
                        && let Value::Object(map) = record
                    {
                        map.extend(row);
                        map.insert("updated_at".into(), Value::from(now));
                        in_service_form(&doc, &schemas, record);
                    }
                }
                (None, Rows::UpdateBy) => {}
                (None, Rows::Create) => {
                    let mut record = row;
                    let id = store.new_id();
                    record.insert("id".into(), Value::from(id));
                    record.insert("created_at".into(), Value::from(now.clone()));
                    record.insert("updated_at".into(), Value::from(now));
                    let mut record = Value::Object(record);
                    in_service_form(&doc, &schemas, &mut record);
                    store.insert(&real, record);
                }
            }
        }
    });
    let message = Text::new(
        "The file is being processed and will take some time",
        "يتم حالياً معالجة الملف وسوف يستغرق بعض الوقت",
    );
    Ok(Reply::Data(json!({ "message": message.get(call.lang) })))
}
