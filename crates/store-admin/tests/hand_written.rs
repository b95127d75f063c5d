//! Every operation progenitor cannot generate (`store_admin::HAND_WRITTEN`, computed by
//! `cargo xtask generate` from the document) has its hand-written method in this crate.

use store_admin::{HAND_WRITTEN, HAND_WRITTEN_METHODS, OPERATIONS, OperationMeta};

#[test]
fn every_operation_progenitor_cannot_generate_has_a_hand_written_method() {
    let missing: Vec<String> = HAND_WRITTEN
        .iter()
        .filter(|h| !HAND_WRITTEN_METHODS.contains(&h.operation_id))
        .map(|h| format!("{} ({})", h.operation_id, h.reason))
        .collect();
    assert!(
        missing.is_empty(),
        "no hand-written method in store-admin for: {}",
        missing.join(", ")
    );
}

#[test]
fn hand_written_methods_are_operations_progenitor_cannot_generate() {
    for id in HAND_WRITTEN_METHODS {
        let meta = OperationMeta::find(id).unwrap_or_else(|| panic!("{id} is no operation"));
        assert!(meta.hand_written().is_some(), "{id} is generated");
    }
    for h in HAND_WRITTEN {
        assert!(
            OPERATIONS
                .iter()
                .any(|op| op.operation_id == h.operation_id),
            "{} is not in OPERATIONS",
            h.operation_id
        );
    }
}
