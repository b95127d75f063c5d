//! Currencies: `POST /currencies` enables or disables currencies the store has (the service's
//! own list, `GET /currencies`), never invents one.

use serde_json::Value;

use crate::engine::Call;
use crate::error::{FieldErrors, Text, required};
use crate::laravel::laravel_bool;
use crate::respond::{Handled, Reply};
use crate::seed::reference::keys::CURRENCIES;

/// `POST /currencies`: each code must be a currency of the store; `status` (Laravel's boolean,
/// `true` when absent) enables or disables it. Answers the store's currencies after the change.
pub(super) fn activate_currencies(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let entries = body.get("currencies").and_then(Value::as_array);
    let mut errors = FieldErrors::new();
    if entries.is_none_or(Vec::is_empty) {
        errors.add("currencies", required("currencies"));
    }
    let mut store = call.state.write();
    let mut changes = Vec::new();
    for (i, entry) in entries.into_iter().flatten().enumerate() {
        let field = format!("currencies.{i}.code");
        let Some(code) = entry
            .get("code")
            .and_then(Value::as_str)
            .map(|c| c.trim().to_uppercase())
            .filter(|c| !c.is_empty())
        else {
            errors.add(&field, required(&field));
            continue;
        };
        let Some(id) = store
            .records(CURRENCIES)
            .find_by("code", &code)
            .and_then(|currency| currency.get("id"))
            .and_then(crate::store::id_text_value)
        else {
            errors.add(
                &field,
                Text::new(
                    format!("The selected {field} is invalid."),
                    format!("قيمة {field} المختارة غير صالحة"),
                ),
            );
            continue;
        };
        let status = match entry.get("status") {
            None | Some(Value::Null) => true,
            Some(value) => match laravel_bool(value) {
                Some(status) => status,
                None => {
                    let field = format!("currencies.{i}.status");
                    errors.add(
                        &field,
                        Text::new(
                            format!("The {field} field must be true or false."),
                            format!("يجب أن تكون قيمة {field} إما true أو false"),
                        ),
                    );
                    continue;
                }
            },
        };
        changes.push((id, status));
    }
    errors.finish()?;
    let currencies = store.records_mut(CURRENCIES);
    for (id, status) in changes {
        if let Some(Value::Object(currency)) = currencies.get_mut(&id) {
            let status = if status { "enabled" } else { "disabled" };
            currency.insert("status".into(), Value::from(status));
        }
    }
    let all: Vec<Value> = store.records(CURRENCIES).iter().cloned().collect();
    Ok(Reply::Data(Value::Array(all)))
}
