//! Languages: `POST /languages` adds languages of the catalogue the service offers, once each.

use serde_json::Value;

use crate::engine::Call;
use crate::error::{FieldErrors, Text, required};
use crate::respond::{Handled, Reply};
use crate::seed::model::Language;
use crate::seed::tables::{LANGUAGE_CATALOGUE, keys::LANGUAGES};
use crate::store::value_as_f64;

/// `POST /languages`: each locale must be in the catalogue and not added yet.
pub(super) fn add_languages(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    let mut wanted = Vec::new();
    for (i, locale) in body
        .get("locales")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("locales.{i}.iso_code");
        let Some(iso) = locale
            .get("iso_code")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_lowercase())
            .filter(|s| !s.is_empty())
        else {
            errors.add(&field, required(&field));
            continue;
        };
        if iso.chars().count() > 3 {
            errors.add(
                &field,
                Text::new(
                    format!("The {field} may not be greater than 3 characters."),
                    format!("يجب أن لا يتجاوز طول النّص {field} 3 حروفٍ/حرفًا"),
                ),
            );
        }
        let Some(known) = LANGUAGE_CATALOGUE.iter().find(|l| l.0 == iso) else {
            errors.add(
                &field,
                Text::new(
                    format!("The {field} field is invalid."),
                    format!("حقل {field} غير صالحٍ"),
                ),
            );
            continue;
        };
        let sort_order = locale
            .get("sort_order")
            .and_then(value_as_f64)
            .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 1e9)
            .map(|n| n as i64);
        wanted.push((field, known, sort_order));
    }
    if body
        .get("locales")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        errors.add("locales", required("locales"));
    }
    let mut store = call.state.write();
    let mut seen: Vec<&str> = Vec::new();
    for (field, known, _) in &wanted {
        let exists = store
            .records(LANGUAGES)
            .iter()
            .any(|l| l.get("iso_code").and_then(Value::as_str) == Some(known.0));
        if exists || seen.contains(&known.0) {
            errors.add(
                field.clone(),
                Text::new("The language has already been added.", "لغة أضيفت بالفعل"),
            );
        }
        seen.push(known.0);
    }
    errors.finish()?;
    let mut added = Vec::new();
    for (_, (iso, name, country, rtl), sort_order) in wanted {
        let languages = store.records(LANGUAGES);
        let id = languages
            .iter()
            .filter_map(|l| l.get("id").and_then(Value::as_i64))
            .max()
            .unwrap_or(0)
            + 1;
        let sort_order = sort_order.unwrap_or(languages.len() as i64);
        let language = Language {
            id,
            name: (*name).to_owned(),
            rtl: *rtl,
            iso_code: (*iso).to_owned(),
            country_code: (*country).to_owned(),
            sort_order,
        }
        .to_json();
        added.push(language.clone());
        store.insert(LANGUAGES, language);
    }
    Ok(Reply::Data(Value::Array(added)))
}
