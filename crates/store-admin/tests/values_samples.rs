//! Typed values read from the service's documented samples.

use store_admin::values::{
    Money, ShipmentStatus, ZonedTimestamp, parse_local_timestamp, parse_naive_timestamp,
};

#[test]
fn every_product_quantity_price_in_the_sample_decodes_exactly() {
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/get_products_quantities.200.json")).unwrap();
    let rows = doc["data"].as_array().unwrap();
    assert!(!rows.is_empty());
    let prices: Vec<Money> = rows
        .iter()
        .map(|row| serde_json::from_value(row["price"].clone()).unwrap())
        .collect();
    // The sample mixes 127 and "127.00": both are the same amount.
    assert!(prices.contains(&"127".parse().unwrap()));
    assert!(prices.iter().all(|p| p.amount().scale() <= 2));
}

#[test]
fn reservation_times_parse_and_the_broken_one_is_an_error() {
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/get_reservations.200.json")).unwrap();
    let mut ok = 0;
    let mut broken = Vec::new();
    for r in doc["data"].as_array().unwrap() {
        for field in ["start", "end", "created_at"] {
            let text = r[field].as_str().unwrap();
            match parse_naive_timestamp(text) {
                Ok(_) => ok += 1,
                Err(e) => broken.push((text.to_owned(), e.to_string())),
            }
        }
    }
    assert_eq!(ok, 5);
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].0, "2024-02-16T:23:59:59");
    assert!(
        broken[0].1.contains("malformed timestamp"),
        "{}",
        broken[0].1
    );
}

#[test]
fn order_date_objects_carry_the_riyadh_offset() {
    let z: ZonedTimestamp = serde_json::from_value(serde_json::json!({
        "date": "2022-06-16 14:48:20.000000",
        "timezone_type": 3,
        "timezone": "Asia/Riyadh"
    }))
    .unwrap();
    let t = z.to_datetime().unwrap();
    assert_eq!(
        t,
        parse_local_timestamp("2022-06-16 11:48:20", "UTC").unwrap()
    );
}

#[test]
fn shipment_status_values_from_facts_are_known() {
    for s in ["created", "in_transit", "return_in_progress", "cancelled"] {
        assert!(ShipmentStatus::from(s).is_known(), "{s}");
    }
}
