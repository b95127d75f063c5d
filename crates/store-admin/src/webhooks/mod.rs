//! Receiving webhooks: verify a delivery on its raw bytes, then parse it into a typed envelope;
//! and build webhook rules without hand-writing their syntax.
//!
//! Needs no HTTP client: give it the request's headers and raw body from any server framework.
//!
//! ```
//! use secrecy::SecretString;
//! use store_admin::webhooks::{signed_headers, verify_and_parse, EventName};
//!
//! let secret = SecretString::from("webhook-secret");
//! let body = br#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":1}}"#;
//! let headers = signed_headers(&secret, body); // what the service sends
//! let event = verify_and_parse(&headers, body, &secret).unwrap();
//! assert_eq!(event.event, EventName::OrderCreated);
//! ```
//!
//! Deliveries are resent up to 3 times when the receiver does not answer 200/201 within about
//! 30 s, so the same event can arrive more than once: handle them idempotently.

mod events;
mod rules;
mod verify;

pub use events::*;
pub use rules::*;
pub use verify::*;

#[cfg(test)]
mod tests {
    use http::{HeaderMap, HeaderValue};
    use secrecy::SecretString;
    use serde::Deserialize;

    use super::*;

    const SECRET: &str = "s3cr3t-webhook-key";
    const BODY: &[u8] = br#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":7}}"#;

    fn secret() -> SecretString {
        SecretString::from(SECRET)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn assert_no_secret(err: &WebhookError, also: &str) {
        for text in [err.to_string(), format!("{err:?}")] {
            assert!(!text.contains(SECRET), "secret leaked: {text}");
            assert!(!text.contains(also), "expected value leaked: {text}");
        }
    }

    #[test]
    fn sign_matches_a_known_hmac_sha256_vector() {
        // RFC 4231 test case 2.
        let key = SecretString::from("Jefe");
        assert_eq!(
            sign(&key, b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn signature_strategy_accepts_the_right_signature() {
        let h = signed_headers(&secret(), BODY);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Signature);
    }

    #[test]
    fn signature_strategy_accepts_uppercase_hex_and_any_header_case() {
        let sig = sign(&secret(), BODY).to_uppercase();
        let mut h = HeaderMap::new();
        h.insert(
            http::HeaderName::from_bytes(b"X-SALLA-SECURITY-STRATEGY").unwrap(),
            HeaderValue::from_static("signature"),
        );
        h.insert(
            http::HeaderName::from_bytes(b"X-Salla-Signature").unwrap(),
            HeaderValue::from_str(&sig).unwrap(),
        );
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Signature);
    }

    #[test]
    fn signature_strategy_rejects_an_altered_body() {
        let h = signed_headers(&secret(), BODY);
        let mut altered = BODY.to_vec();
        altered[10] ^= 1;
        let err = verify(&h, &altered, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::SignatureMismatch));
        assert_no_secret(&err, &sign(&secret(), &altered));
    }

    #[test]
    fn signature_strategy_rejects_another_secret() {
        let h = signed_headers(&SecretString::from("other"), BODY);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::SignatureMismatch));
        assert_no_secret(&err, &sign(&secret(), BODY));
    }

    #[test]
    fn signature_strategy_rejects_bad_hex_distinctly() {
        let bad = "zz".repeat(32);
        let h = headers(&[(STRATEGY_HEADER, "Signature"), (SIGNATURE_HEADER, &bad)]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(
            matches!(err, WebhookError::MalformedSignature { length: 64 }),
            "{err:?}"
        );
        let h = headers(&[(STRATEGY_HEADER, "Signature"), (SIGNATURE_HEADER, "abcd")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(
            err,
            WebhookError::MalformedSignature { length: 4 }
        ));
        assert_no_secret(&err, &sign(&secret(), BODY));
    }

    #[test]
    fn signature_strategy_without_signature_header_is_missing_signature() {
        let h = headers(&[(STRATEGY_HEADER, "Signature")]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingSignature)
        ));
    }

    #[test]
    fn token_strategy_accepts_the_secret_in_authorization() {
        let h = token_headers(&secret()).unwrap();
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
        let h = headers(&[(STRATEGY_HEADER, "TOKEN"), ("Authorization", SECRET)]);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
    }

    #[test]
    fn token_strategy_tolerates_a_bearer_prefix() {
        let value = format!("Bearer {SECRET}");
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", &value)]);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
    }

    #[test]
    fn token_strategy_rejects_a_wrong_token_without_showing_either() {
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", "guess")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::TokenMismatch));
        assert_no_secret(&err, "guess");
        let prefix = &SECRET[..SECRET.len() - 1];
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", prefix)]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::TokenMismatch)
        ));
    }

    #[test]
    fn token_strategy_without_authorization_is_missing_token() {
        let h = headers(&[(STRATEGY_HEADER, "Token")]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingToken)
        ));
    }

    #[test]
    fn missing_strategy_header_is_its_own_error() {
        let mut h = signed_headers(&secret(), BODY);
        h.remove(STRATEGY_HEADER);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingStrategy)
        ));
    }

    #[test]
    fn unknown_strategy_is_named_in_the_error() {
        let h = headers(&[(STRATEGY_HEADER, "Magic")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(&err, WebhookError::UnknownStrategy(s) if s == "Magic"));
        assert!(err.to_string().contains("Magic"));
        let long = "x".repeat(500);
        let h = headers(&[(STRATEGY_HEADER, &long)]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(&err, WebhookError::UnknownStrategy(s) if s.len() == 64));
    }

    #[test]
    fn empty_secret_is_refused() {
        let empty = SecretString::from("");
        let h = signed_headers(&empty, BODY);
        assert!(matches!(
            verify(&h, BODY, &empty),
            Err(WebhookError::EmptySecret)
        ));
    }

    #[test]
    fn verify_and_parse_does_not_parse_an_unverified_body() {
        // Invalid JSON with a bad signature: the error is about the signature, proving that
        // verification came first.
        let h = headers(&[
            (STRATEGY_HEADER, "Signature"),
            (SIGNATURE_HEADER, &"00".repeat(32)),
        ]);
        assert!(matches!(
            verify_and_parse(&h, b"not json", &secret()),
            Err(WebhookError::SignatureMismatch)
        ));
    }

    #[test]
    fn verify_and_parse_returns_the_typed_event() {
        let h = signed_headers(&secret(), BODY);
        let e = verify_and_parse(&h, BODY, &secret()).unwrap();
        assert_eq!(e.event, EventName::OrderCreated);
        assert_eq!(e.merchant, 1_234_509_876);
        assert_eq!(e.data["id"], 7);
        assert_eq!(
            e.created_at_naive().unwrap().to_string(),
            "2022-12-31 12:31:25"
        );
        assert_eq!(
            e.created_at_in("Asia/Riyadh").unwrap().to_rfc3339(),
            "2022-12-31T12:31:25+03:00"
        );
    }

    #[test]
    fn created_at_reads_the_three_forms_the_service_sends() {
        let at = |created_at: &str| {
            let body = format!(
                r#"{{"event":"order.created","merchant":1,"created_at":"{created_at}","data":{{}}}}"#
            );
            parse_event(body.as_bytes()).unwrap()
        };
        for (form, naive, riyadh) in [
            (
                "Sun Aug 24 2025 01:58:16 GMT+0300",
                "2025-08-24 01:58:16",
                "2025-08-24T01:58:16+03:00",
            ),
            (
                "Sun Aug 24 2025 01:58:16 GMT+0300 (Arabian Standard Time)",
                "2025-08-24 01:58:16",
                "2025-08-24T01:58:16+03:00",
            ),
            (
                "2025-08-23T22:58:16Z",
                "2025-08-23 22:58:16",
                "2025-08-24T01:58:16+03:00",
            ),
            (
                "2025-08-24 01:58:16",
                "2025-08-24 01:58:16",
                "2025-08-24T01:58:16+03:00",
            ),
        ] {
            let event = at(form);
            assert_eq!(
                event.created_at_naive().unwrap().to_string(),
                naive,
                "{form}"
            );
            assert_eq!(
                event.created_at_in("Asia/Riyadh").unwrap().to_rfc3339(),
                riyadh,
                "{form}"
            );
        }
        assert_eq!(
            at("2025-08-23T22:58:16Z")
                .created_at_in("+00:00")
                .unwrap()
                .to_rfc3339(),
            "2025-08-23T22:58:16+00:00"
        );
        assert!(
            at("Sun Aug 24 2025 01:58:16 GMT+0300")
                .created_at_in("Mars/Base")
                .is_err()
        );
        assert!(at("…").created_at_naive().is_err());
    }

    #[test]
    fn parse_event_keeps_unknown_event_names() {
        let e = parse_event(
            br#"{"event":"brand.teleported","merchant":"42","created_at":"x","data":null}"#,
        )
        .unwrap();
        assert_eq!(e.event, EventName::Other("brand.teleported".into()));
        assert!(!e.event.is_known());
        assert_eq!(e.merchant, 42);
        assert!(e.created_at_naive().is_err());
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["event"], "brand.teleported");
    }

    #[test]
    fn event_names_are_the_documents_list_with_the_app_events() {
        for name in [
            "app.store.authorize",
            "app.installed",
            "app.uninstalled",
            "app.updated",
            "app.subscription.renewed",
            "order.created",
            "shipment.updated",
        ] {
            assert!(EventName::from(name).is_known(), "{name}");
        }
        assert_eq!(EventName::AppStoreAuthorize.as_str(), "app.store.authorize");
        assert!(!EventName::from("brand.new.event").is_known());
    }

    #[test]
    fn event_names_round_trip_as_plain_strings() {
        for name in EventName::KNOWN {
            let json = serde_json::to_string(name).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(&serde_json::from_str::<EventName>(&json).unwrap(), name);
        }
        assert!(EventName::from("shipment.cancelled").is_known());
        assert!(EventName::from("order.shipment.return.cancelled").is_known());
    }

    #[test]
    fn parse_event_names_the_path_of_a_decode_failure() {
        let err = parse_event(
            br#"{"event":"test","merchant":"abc","created_at":"2022-12-31 12:31:25","data":{}}"#,
        )
        .unwrap_err();
        match err {
            WebhookError::Decode { path, message } => {
                assert_eq!(path, "merchant");
                assert!(message.contains("abc"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        let err =
            parse_event(br#"{"event":7,"merchant":1,"created_at":"","data":{}}"#).unwrap_err();
        assert!(
            matches!(&err, WebhookError::Decode { path, .. } if path == "event"),
            "{err:?}"
        );
    }

    #[test]
    fn parse_event_rejects_missing_fields_and_trailing_garbage() {
        let err = parse_event(br#"{"event":"test","merchant":1,"data":{}}"#).unwrap_err();
        assert!(err.to_string().contains("created_at"), "{err}");
        let err = parse_event(br#"{"event":"test","merchant":1,"created_at":"","data":{}} x"#)
            .unwrap_err();
        assert!(matches!(err, WebhookError::Decode { .. }));
        assert!(matches!(parse_event(b""), Err(WebhookError::Decode { .. })));
    }

    #[test]
    fn data_as_prefixes_the_path_with_data() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Order {
            id: i64,
            items: Vec<Item>,
        }
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Item {
            quantity: u32,
        }
        let e = parse_event(
            br#"{"event":"order.created","merchant":1,"created_at":"","data":{"id":1,"items":[{"quantity":"two"}]}}"#,
        )
        .unwrap();
        let err = e.data_as::<Order>().unwrap_err();
        assert!(
            matches!(&err, WebhookError::Decode { path, .. } if path == "data.items[0].quantity"),
            "{err:?}"
        );
    }

    #[test]
    fn rule_renders_the_documented_example() {
        let rule = Rule::attr("status")
            .eq("active")
            .or(Rule::attr("applied_to").eq("first_order"));
        assert_eq!(
            rule.render().unwrap(),
            "status = `active` OR applied_to = `first_order`"
        );
    }

    #[test]
    fn rule_writes_numbers_bare_and_strings_in_backticks() {
        let rule = Rule::attr(OrderRuleAttribute::Total)
            .gt(100)
            .and(Rule::attr(OrderRuleAttribute::SubTotal).lt(12.5))
            .and(Rule::attr(OrderRuleAttribute::CouponCode).ne("SALE"))
            .and(Rule::attr(OrderRuleAttribute::BranchId).eq(3))
            .and(
                Rule::attr(OrderRuleAttribute::Total)
                    .lt("99.90".parse::<crate::values::Money>().unwrap()),
            );
        assert_eq!(
            rule.render().unwrap(),
            "total > 100 AND sub_total < 12.5 AND coupon_code != `SALE` AND branch_id = 3 AND total < 99.90"
        );
    }

    #[test]
    fn rule_single_comparison_and_string_conversion() {
        let rule = Rule::attr("payment_method").eq("mada");
        assert_eq!(String::try_from(&rule).unwrap(), "payment_method = `mada`");
        // A numeric-looking string stays a string.
        assert_eq!(
            Rule::attr("status_id").eq("5").render().unwrap(),
            "status_id = `5`"
        );
    }

    #[test]
    fn rule_rejects_a_backtick_in_a_string() {
        let rule = Rule::attr("name")
            .eq("ok")
            .or(Rule::attr("coupon_code").eq("x` OR id > `0"));
        assert_eq!(
            rule.render(),
            Err(RuleError::BacktickInValue {
                attribute: "coupon_code".into()
            })
        );
    }

    #[test]
    fn rule_rejects_mixed_and_or() {
        let rule = Rule::attr("a")
            .eq(1)
            .and(Rule::attr("b").eq(2))
            .or(Rule::attr("c").eq(3));
        assert_eq!(rule.render(), Err(RuleError::MixedConnectives));
    }

    #[test]
    fn rule_rejects_bad_attribute_names_and_non_finite_numbers() {
        for name in ["", "total OR id", "a=b", "x`"] {
            assert_eq!(
                Rule::attr(name).eq(1).render(),
                Err(RuleError::InvalidAttribute(name.into()))
            );
        }
        assert_eq!(
            Rule::attr("total").gt(f64::NAN).render(),
            Err(RuleError::NonFiniteNumber {
                attribute: "total".into()
            })
        );
    }

    #[test]
    fn order_rule_attributes_are_the_documented_nine() {
        let names: Vec<&str> = OrderRuleAttribute::KNOWN
            .iter()
            .map(|a| a.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "id",
                "reference_id",
                "total",
                "sub_total",
                "payment_method",
                "status_id",
                "branch_id",
                "coupon_code",
                "shipment_company_id"
            ]
        );
    }
}
