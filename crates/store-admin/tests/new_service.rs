//! A small service, written the way a developer new to the crate writes it: only `store_admin`'s
//! public API (no `http`, `secrecy` or `rust_decimal` of its own), the values it has in hand
//! (`"149.50"`, a `Decimal`, `10`, `"cod"`, `"2030-12-31"`), and the embedded mock store on
//! 127.0.0.1. What the library sends is checked on the request itself (the body the builder makes,
//! the query the mock received), and what the mock answers is read back.

use futures::TryStreamExt;
use store_admin::prelude::*;
use store_admin::webhooks::{self, EventName, HeaderMap};
use store_admin::{Decimal, PageOptions, SecretString, StoreAdmin, types};
use store_admin_mock::{MockConfig, MockServer};

type Failure = Box<dyn std::error::Error>;

async fn store() -> Result<(MockServer, StoreAdmin), Failure> {
    let server = MockServer::start(MockConfig::new()).await?;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(store_admin_mock::DEFAULT_TOKEN)
        .build()?;
    Ok((server, admin))
}

#[tokio::test]
async fn a_product_priced_as_text_is_sent_and_read_back_exactly() -> Result<(), Failure> {
    let (_server, admin) = store().await?;
    let lamp = types::CreateProductRequest::builder()
        .name("Desk lamp")
        .price("149.50");
    // Sent as written: the decimal text, never through `f64`.
    let body = types::CreateProductRequest::try_from(lamp.clone())?;
    assert_eq!(serde_json::to_value(&body)?["price"], "149.50");

    let created = admin.create_product().body(lamp).call().await?;
    let read = admin
        .get_product()
        .product_id(created.data.id)
        .call()
        .await?;
    let price = read.data.price.as_ref().expect("a price").decimal()?;
    assert_eq!(price.amount(), Decimal::new(14950, 2));
    Ok(())
}

#[tokio::test]
async fn amounts_take_a_decimal_an_integer_or_text_and_bad_text_names_the_field()
-> Result<(), Failure> {
    let exact = Decimal::new(14950, 2);
    for (builder, sent) in [
        (
            types::CreateProductRequest::builder().price(exact),
            "149.50",
        ),
        (types::CreateProductRequest::builder().price(149), "149"),
        (
            types::CreateProductRequest::builder().price("149.50"),
            "149.50",
        ),
        (
            types::CreateProductRequest::builder().price(store_admin::values::Money::from(exact)),
            "149.50",
        ),
        // An `f64` given explicitly stays a JSON number.
        (types::CreateProductRequest::builder().price(149.5), "f64"),
    ] {
        let body = types::CreateProductRequest::try_from(builder.name("Lamp"))?;
        let price = &serde_json::to_value(&body)?["price"];
        match sent {
            "f64" => assert_eq!(price, &serde_json::json!(149.5)),
            text => assert_eq!(price, text),
        }
    }
    let refused = types::CreateProductRequest::try_from(
        types::CreateProductRequest::builder()
            .name("Lamp")
            .price("about 150"),
    )
    .expect_err("not an amount");
    assert_eq!(
        refused.to_string(),
        "price: expected a decimal amount such as \"149.50\", got \"about 150\""
    );
    Ok(())
}

#[tokio::test]
async fn orders_paid_cash_on_delivery_are_asked_for_by_their_text() -> Result<(), Failure> {
    let (server, admin) = store().await?;
    let orders: Vec<types::Order> = admin
        .list_orders()
        .payment_method("cod")
        .items(PageOptions::default())
        .try_collect()
        .await?;
    let asked = server
        .journal()
        .into_iter()
        .find(|entry| entry.operation_id == "list_orders")
        .expect("the list reached the mock");
    assert!(
        asked.path.contains("payment_method%5B%5D=cod")
            || asked.path.contains("payment_method[]=cod"),
        "{}",
        asked.path
    );
    for order in &orders {
        if let Some(method) = &order.payment_method {
            assert_eq!(method.as_str(), "cod", "the mock filters by payment method");
        }
    }
    Ok(())
}

#[tokio::test]
async fn orders_are_asked_for_by_known_constants_and_read_back_as_them() -> Result<(), Failure> {
    use store_admin::values::OrderPaymentMethod;
    let (server, admin) = store().await?;
    let orders: Vec<types::Order> = admin
        .list_orders()
        .payment_method(vec![
            types::OrderPaymentMethod::from(OrderPaymentMethod::Cod),
            OrderPaymentMethod::from("bnpl_later").into(),
        ])
        .items(PageOptions::default())
        .try_collect()
        .await?;
    let asked = server
        .journal()
        .into_iter()
        .find(|entry| entry.operation_id == "list_orders")
        .expect("the list reached the mock");
    let query = asked.path.replace("%5B%5D", "[]");
    assert!(
        query.contains("payment_method[]=cod") && query.contains("payment_method[]=bnpl_later"),
        "{query}"
    );
    // One constant alone is a list of one.
    admin
        .list_orders()
        .payment_method(OrderPaymentMethod::Cod)
        .call()
        .await?;
    for order in &orders {
        if let Some(method) = order.payment_method.clone() {
            let method = OrderPaymentMethod::from(method);
            assert!(
                method == OrderPaymentMethod::Cod || method.as_str() == "bnpl_later",
                "{method}"
            );
            assert!(method.is_known() || method.as_str() == "bnpl_later");
        }
    }
    Ok(())
}

#[tokio::test]
async fn a_coupon_for_ten_percent_takes_an_integer_amount_and_a_date_as_text() -> Result<(), Failure>
{
    let (_server, admin) = store().await?;
    let coupon = types::CreateCouponRequest::builder()
        .code("TEN")
        .type_("percentage")
        .amount(10)
        .free_shipping(false)
        .exclude_sale_products(false)
        .expiry_date("2030-12-31");
    let body = types::CreateCouponRequest::try_from(coupon.clone())?;
    let sent = serde_json::to_value(&body)?;
    assert_eq!(sent["amount"], "10");
    assert_eq!(sent["expiry_date"], "2030-12-31");
    let created = admin.create_coupon().body(coupon).call().await?;
    let amount = created.data.amount.as_ref().expect("an amount").decimal()?;
    assert_eq!(amount.amount(), Decimal::from(10));
    Ok(())
}

#[tokio::test]
async fn a_decimal_is_deposited_in_a_customers_wallet() -> Result<(), Failure> {
    let (_server, admin) = store().await?;
    let customers = admin.list_customers().call().await?;
    let customer = customers.data.first().expect("the mock has customers");
    let deposit = types::DepositCustomerWalletRequest::builder()
        .customer_id(customer.id)
        .amount(Decimal::new(2500, 2));
    let body = types::DepositCustomerWalletRequest::try_from(deposit.clone())?;
    assert_eq!(serde_json::to_value(&body)?["amount"], "25.00");
    let done = admin.deposit_customer_wallet().body(deposit).call().await?;
    if let Some(amount) = &done.data.amount {
        assert_eq!(amount.decimal()?.amount(), Decimal::new(2500, 2));
    }
    Ok(())
}

#[tokio::test]
async fn a_404_and_a_422_are_branches() -> Result<(), Failure> {
    let (_server, admin) = store().await?;
    let missing = match admin.get_product().product_id(987_654_321).call().await {
        Err(e) if e.is_not_found() => true,
        Err(e) => return Err(e.into()),
        Ok(_) => false,
    };
    assert!(missing);

    let french: types::LocaleInput = types::LocaleInput::builder().iso_code("zzz").try_into()?;
    let languages = types::AddLanguagesRequest::builder().locales(french); // one, or a Vec
    let fields = match admin.add_languages().body(languages).call().await {
        Err(e) if e.is_validation() => {
            for (field, messages) in e.fields() {
                println!("{field}: {}", messages.join("; "));
            }
            e.fields().clone()
        }
        Err(e) => return Err(e.into()),
        Ok(_) => panic!("an unknown language was added"),
    };
    assert!(fields.contains_key("locales.0.iso_code"), "{fields:?}");
    Ok(())
}

#[tokio::test]
async fn a_webhook_is_verified_with_only_store_admin() -> Result<(), Failure> {
    let secret = SecretString::from("webhook-secret");
    let body = br#"{"event":"order.created","merchant":1,"created_at":"2022-12-31 12:31:25","data":{"id":7}}"#;
    // What the service sends with a delivery.
    let mut headers = HeaderMap::new();
    headers.insert(webhooks::STRATEGY_HEADER, "Signature".parse()?);
    headers.insert(
        webhooks::SIGNATURE_HEADER,
        webhooks::sign(&secret, body).parse()?,
    );
    let event = webhooks::verify_and_parse(&headers, body, &secret)?;
    assert_eq!(event.event, EventName::OrderCreated);
    headers.insert(webhooks::SIGNATURE_HEADER, "00".parse()?);
    assert!(webhooks::verify_and_parse(&headers, body, &secret).is_err());
    Ok(())
}
