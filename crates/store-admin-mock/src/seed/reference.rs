//! The reference data of the service, as its documentation shows it, instead of generated
//! words: countries (Saudi Arabia is `1473353380`, `SA`, `+966`, as the documented customers and
//! cities have it; `773200552` is the country the documented tax example names), the cities of
//! Saudi Arabia and the districts of Riyadh exactly as the documented examples list them
//! (`data/cities.json`, `data/districts.json`: `GET /countries/{id}/cities` and
//! `GET /cities/{id}/districts`), and the currencies (ISO 4217 codes, the store's `SAR` and the
//! `KWD` of the documented examples enabled). Each table fills its collection only where the
//! document has that collection (by its path), before the generated records: a collection a table
//! fills is not generated. Last, every record a documented request example names by a
//! `<thing>_id` (`data/documented_ids.json`, read from the examples: the customer group, the
//! store scope, the tax's country) exists, generated from the collection's schemas with that id,
//! so that the documented requests are accepted as the service accepts them; a hand-made table's
//! collection gives those ids to its first records instead (`tables.rs`).

use serde_json::{Value, json};

use crate::engine::Engine;
use crate::store::Store;

/// Saudi Arabia's id in the documentation (its customers' `country`, its cities' `country_id`).
pub(crate) const SAUDI_ARABIA: i64 = 1_473_353_380;
/// Riyadh's id in the documentation (the first of Saudi Arabia's cities).
pub(crate) const RIYADH: i64 = 1_473_353_380;

/// `(id, name, name in Arabic, ISO 3166 code, dialling code, currency code)`.
const COUNTRIES: &[(i64, &str, &str, &str, &str, &str)] = &[
    (
        SAUDI_ARABIA,
        "Saudi Arabia",
        "السعودية",
        "SA",
        "+966",
        "SAR",
    ),
    (
        773_200_552,
        "United Arab Emirates",
        "الإمارات",
        "AE",
        "+971",
        "AED",
    ),
    (1_939_592_360, "Kuwait", "الكويت", "KW", "+965", "KWD"),
    (1_298_199_465, "Bahrain", "البحرين", "BH", "+973", "BHD"),
    (525_144_738, "Qatar", "قطر", "QA", "+974", "QAR"),
    (1_764_372_899, "Oman", "عمان", "OM", "+968", "OMR"),
    (989_286_564, "Yemen", "اليمن", "YE", "+967", "YER"),
    (349_994_917, "Egypt", "مصر", "EG", "+20", "EGP"),
    (1_723_506_350, "Jordan", "الأردن", "JO", "+962", "JOD"),
    (
        814_202_287,
        "United States",
        "الولايات المتحدة",
        "US",
        "+1",
        "USD",
    ),
];

/// `(code, English name, Arabic name, symbol, enabled in the store)`.
const CURRENCIES: &[(&str, &str, &str, &str, bool)] = &[
    ("SAR", "Saudi Riyal", "ريال سعودي", "ر.س", true),
    ("KWD", "Kuwaiti Dinar", "دينار كويتي", "د.ك", true),
    ("AED", "UAE Dirham", "درهم إماراتي", "د.إ", false),
    ("BHD", "Bahraini Dinar", "دينار بحريني", "د.ب", false),
    ("QAR", "Qatari Riyal", "ريال قطري", "ر.ق", false),
    ("OMR", "Omani Rial", "ريال عماني", "ر.ع.", false),
    ("YER", "Yemeni Rial", "ريال يمني", "ر.ي", false),
    ("EGP", "Egyptian Pound", "جنيه مصري", "ج.م", false),
    ("JOD", "Jordanian Dinar", "دينار أردني", "د.أ", false),
    ("USD", "US Dollar", "دولار أمريكي", "$", false),
];

/// The collections the tables fill, by the document's paths.
pub(crate) mod keys {
    pub const COUNTRIES: &str = "/countries";
    pub const CITIES: &str = "/countries/{}/cities";
    pub const DISTRICTS: &str = "/cities/{}/districts";
    pub const CURRENCIES: &str = "/currencies";
    pub const AVAILABLE_CURRENCIES: &str = "/currencies/available";
}

/// The `data` of a documented example.
fn example_data(text: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("data").and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

/// The parameter naming a sub-collection's parent (`country_id`), as the document names it.
fn parent_param(engine: &Engine, key: &str, default: &str) -> String {
    engine
        .collections
        .get(key)
        .and_then(|c| c.parent.as_ref())
        .map_or_else(|| default.to_owned(), |(_, p)| p.clone())
}

/// Fills the reference collections the document has.
pub(crate) fn seed(engine: &Engine, store: &mut Store) {
    let has = |key: &str| engine.collections.contains_key(key);
    // Newest first in a list: insert in reverse so that the table's order is the list's.
    if has(keys::COUNTRIES) {
        for (id, name, _, code, mobile_code, _) in COUNTRIES.iter().rev() {
            store.insert(
                keys::COUNTRIES,
                json!({"id": id, "name": name, "name_en": name, "code": code, "mobile_code": mobile_code}),
            );
        }
    }
    if has(keys::CITIES) {
        let param = parent_param(engine, keys::CITIES, "country_id");
        for mut city in example_data(include_str!("data/cities.json"))
            .into_iter()
            .rev()
        {
            if let Some(map) = city.as_object_mut() {
                let country = map.remove("country_id").unwrap_or(json!(SAUDI_ARABIA));
                map.insert(param.clone(), country);
            }
            store.insert(keys::CITIES, city);
        }
    }
    if has(keys::DISTRICTS) {
        let param = parent_param(engine, keys::DISTRICTS, "city_id");
        for mut district in example_data(include_str!("data/districts.json"))
            .into_iter()
            .rev()
        {
            if let Some(map) = district.as_object_mut() {
                map.insert(param.clone(), json!(RIYADH));
            }
            store.insert(keys::DISTRICTS, district);
        }
    }
    if has(keys::CURRENCIES) {
        for (i, (code, name, _, symbol, enabled)) in CURRENCIES.iter().enumerate().rev() {
            store.insert(
                keys::CURRENCIES,
                json!({
                    "id": i + 1,
                    "name": name,
                    "code": code,
                    "symbol": symbol,
                    "status": if *enabled { "enabled" } else { "disabled" },
                }),
            );
        }
    }
    if has(keys::AVAILABLE_CURRENCIES) {
        for (id, name, name_ar, code, _, currency) in COUNTRIES.iter().rev() {
            let Some((_, currency_en, currency_ar, _, _)) =
                CURRENCIES.iter().find(|c| c.0 == *currency)
            else {
                continue;
            };
            store.insert(
                keys::AVAILABLE_CURRENCIES,
                json!({
                    "id": id,
                    "country_name_en": name,
                    "country_name_ar": name_ar,
                    "country_code": code,
                    "currency_code": currency,
                    "currency_name_en": currency_en,
                    "currency_name_ar": currency_ar,
                }),
            );
        }
    }
}

/// Makes every record the documented request examples name exist (see the module documentation):
/// a collection that lacks one gets it, generated from its schemas, as its oldest record.
pub(crate) fn documented_records(
    engine: &Engine,
    store: &mut Store,
    seed: u64,
    tabled: &std::collections::HashSet<String>,
) {
    let pairs: Vec<(String, i64)> =
        serde_json::from_str(include_str!("data/documented_ids.json")).unwrap_or_default();
    for (field, id) in pairs {
        let Some(info) = engine.collection_for_field(&field) else {
            continue;
        };
        let real = engine.real_key(&info.key).to_owned();
        let Some(info) = engine.collections.get(&real) else {
            continue;
        };
        // The hand-made tables' records have a structure of their own (orders, companies):
        // those are not added to.
        if tabled.contains(&real)
            || info.record_schemas.is_empty()
            || store.records(&real).get(&id.to_string()).is_some()
        {
            continue;
        }
        let string_ids = info.record_schemas.iter().any(|s| {
            engine
                .doc
                .view(s)
                .property("id")
                .is_some_and(|p| engine.doc.view(p).kind() == Some("string"))
        });
        let id_value = if string_ids {
            json!(id.to_string())
        } else {
            json!(id)
        };
        let record_seed = crate::fake::stable_hash(&[&seed.to_string(), &real, &id.to_string()]);
        let mut record = json!({ "id": id_value });
        crate::engine::complete::complete(
            &engine.doc,
            &info.record_schemas,
            &mut record,
            record_seed,
            1,
        );
        store.claim_id(id);
        store.records_mut(&real).insert_oldest(record);
    }
}
