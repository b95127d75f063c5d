//! `crates/store-admin-cli/src/generated_cli.rs`: the `store-admin` command tree, from the document
//! and from progenitor's builders.
//!
//! The document says which operations exist, their group (tag), summary, parameters, body fields
//! and descriptions; progenitor's output says the Rust type each builder method takes and what
//! `send()` returns. Both are read here, so that the command line follows the document without a
//! hand-written line. Naming rules (also in the CLI's README):
//!
//! - group ([`group_name`](naming::group_name)): the tag in kebab case, the words before the last singular as English
//!   compounds are (`Customer Groups` -> `customer-groups`, `Digitals Product` ->
//!   `digital-products`);
//! - command ([`command_name`](naming::command_name)): the operationId without the group's words, wherever they are
//!   (singular and plural alike), nor a preposition they leave dangling at the end: `list_brands`
//!   in `Brands` -> `list`, `export_orders` in `Exports` -> `orders`, `add_customers_to_group` in
//!   `Customer Groups` -> `add`. Two operations of one group that would get one name keep their
//!   whole kebab-cased operationId. The names of earlier versions ([`earlier_command_name`](naming::earlier_command_name), the
//!   tag's words for a group) stay as hidden aliases;
//! - path parameters are positional, and so is a record's id that an operation takes in its body
//!   where its group's other commands take it in the path (`orders duplicate ORDER_ID` as
//!   `orders get ORDER_ID`, its flag kept hidden; `positional_ids` in `model.rs`); query
//!   parameters are flags; every other body field is a flag
//!   ([`FieldKind`](model::FieldKind)): a scalar or a number-or-string union takes one value, an array of scalars
//!   is a repeated flag, anything else (an object, an array of objects) is `--FIELD-json JSON`
//!   with an example of its shape in the help and in errors. Required body fields are marked in
//!   the help and all named by one error when missing. Help is the document's description for
//!   users ([`Words`](text::Words): notes for developers, such as `x-assumed` reasons, and
//!   schema names left out by the parenthesis or the clause that holds them, the user's words
//!   of the same sentence kept; an operationId written as the command a user types), with the
//!   values of a set unless the description lists them already, and "\[required\]"; a field
//!   that gives only a shared type (`NumberOrString`) says what it is from the record the
//!   operation answers, else from its name in English word order
//!   ([`named_field`](text::named_field)), with the type's rule as a short suffix
//!   ([`field_help`](model::field_help)). `--help` of a command shows its operation's
//!   description, and for a body without flags the JSON shape of each variant; numbers take
//!   `-5` without `=`. Each scalar flag
//!   checks its value by the document ([`checks`]: a number, a decimal as text for `number |
//!   string`, the bounds) and each body is checked as a whole before it is sent (nested required
//!   fields, bounds and closed sets at every depth, all named at once). `--body FILE|-`
//!   takes the whole body; a paged list takes `--page`, `--per-page` and `--all`;
//! - table columns of a record type ([`columns`](columns::columns)): by a rule over the
//!   document's field names, formats and shapes (an id, what names the record, price, stock, SKU,
//!   status, date, link, then the rest in document order), most important first, with a key
//!   column that a narrow table never drops; `x-table-columns` on a schema overrides the rule.
//!   Its CSV columns too ([`csv_columns`](columns::csv_columns));
//! - what the CLI knows of the document at run time is emitted here as tables, so that the
//!   document has one reader (this generator) and the CLI never reads the types' JSON schemas:
//!   each body's known fields (`BODY_FIELDS`) and checks, each record type's columns
//!   (`RECORD_CSV_COLUMNS`), and the closed value sets that hand-written flags take
//!   (`generated_sets.rs`).
//!
//! The few things the document cannot say (a repeatable `--value NAME=PRICE` that builds an array
//! of objects, a secret read from the environment, "one of --id or --url") are hand-written types
//! of the CLI crate, named here in [`EXTRAS`](model::EXTRAS) and flattened into the generated command.

use anyhow::{Context, Result};

use crate::document::{Document, code_file};
use crate::model::Output;

mod checks;
mod columns;
mod emit;
pub(crate) mod model;
pub(crate) mod naming;
mod text;

use model::{Model, builders, parse_sources};

/// The generated command tree, relative to the workspace root.
pub const CLI_OUT: &str = "crates/store-admin-cli/src/generated_cli.rs";
/// The facade's decoder table, generated from the same model.
pub const DECODERS_OUT: &str = "crates/store-admin-client/src/decoders/generated.rs";
/// The document's closed value sets, for the CLI's hand-written flags.
pub const SETS_OUT: &str = "crates/store-admin-cli/src/generated_sets.rs";

/// Where the generated client code lives: every output whose path starts with this and whose
/// file name starts with `generated` is read for its builders (one crate or several).
const CLIENT_SOURCES: &str = "crates/store-admin-client";

/// The types of the client sources that have a struct builder (`types::builder::X`): the request
/// types (`rewrite::prune_struct_builders` keeps no other).
fn type_builders(files: &[syn::File]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let module = |items: &[syn::Item], name: &str| -> Vec<syn::Item> {
        items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, i)| i.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    };
    for file in files {
        for item in module(&module(&file.items, "types"), "builder") {
            if let syn::Item::Struct(s) = item {
                out.insert(s.ident.to_string());
            }
        }
    }
    out
}

/// The generated file of the command line, from the document and the client outputs generated
/// before it.
pub fn outputs(doc: &Document, client: &[Output]) -> Result<Vec<Output>> {
    let sources: Vec<&str> = client
        .iter()
        .filter(|o| {
            o.rel_path.starts_with(CLIENT_SOURCES)
                && o.rel_path
                    .rsplit('/')
                    .next()
                    .is_some_and(|name| name.starts_with("generated"))
        })
        .map(|o| o.content.as_str())
        .collect();
    let files = parse_sources(&sources)?;
    let model = Model::build(doc, &builders(&files))?;
    let tokens = model.render();
    let file: syn::File =
        syn::parse2(tokens).context("the generated command tree does not parse")?;
    let decoders: syn::File = syn::parse2(model.render_decoders(&type_builders(&files)))
        .context("the generated decoder table does not parse")?;
    Ok(vec![
        Output {
            rel_path: CLI_OUT.to_owned(),
            content: code_file(
                doc,
                "The `store-admin` command tree: one group per tag, one command per operation.",
                &prettyplease::unparse(&file),
            )?,
        },
        Output {
            rel_path: SETS_OUT.to_owned(),
            content: code_file(
                doc,
                "The document's closed value sets, for the CLI's hand-written flags.",
                &prettyplease::unparse(
                    &syn::parse2(closed_sets(doc)).context("the value sets do not parse")?,
                ),
            )?,
        },
        Output {
            rel_path: DECODERS_OUT.to_owned(),
            content: code_file(
                doc,
                "Per operation, the generated types of its bodies (`decoders::DECODERS`).",
                &prettyplease::unparse(&decoders),
            )?,
        },
    ])
}

/// `generated_sets.rs`: one constant per closed value set of the document (a component schema
/// with an `enum`: `SECURITY_STRATEGY` of `SecurityStrategy`), which the hand-written flags of
/// `extras.rs` take their values from, as the generated flags take theirs. It is a file of its
/// own, below both: the generated command tree imports `extras.rs`, so `extras.rs` cannot
/// import the tree.
fn closed_sets(doc: &Document) -> proc_macro2::TokenStream {
    let raw = crate::document::Raw(&doc.raw);
    let schemas = doc
        .raw
        .pointer("/components/schemas")
        .and_then(serde_json::Value::as_object);
    let sets = schemas.into_iter().flatten().filter_map(|(name, schema)| {
        let model::Values::Closed(values) = raw.values(schema) else {
            return None;
        };
        let constant = quote::format_ident!("{}", crate::names::snake(name).to_uppercase());
        let doc = format!(" The values of the document's `{name}`.");
        Some(quote::quote! {
            #[doc = #doc]
            pub const #constant: &[&str] = &[#(#values),*];
        })
    });
    quote::quote!(#(#sets)*)
}

// ------------------------------------------------------------------------------------------------
// progenitor's builders

#[cfg(test)]
mod tests {
    use super::model::*;
    use super::naming::*;
    use super::text::*;
    use super::*;
    use crate::names::{pascal, snake};

    /// The command tree of the document, one line per command, so that a change of the
    /// document or of the naming rules shows as a reviewable diff.
    /// The document and the command model, built from the committed client sources.
    fn document_and_model() -> (Document, Model) {
        let root = crate::document::workspace_root();
        let doc = Document::load(&root, crate::document::SPEC).expect("the document loads");
        // Every generated file of the client crates (one crate or several).
        let mut sources = Vec::new();
        for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
            let dir = entry.expect("an entry").path();
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            if !name.is_some_and(|n| n.starts_with("store-admin-client")) {
                continue;
            }
            for file in std::fs::read_dir(dir.join("src")).expect("src/") {
                let file = file.expect("an entry").path();
                if file
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("generated"))
                {
                    sources.push(std::fs::read_to_string(&file).expect("readable"));
                }
            }
        }
        let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
        let builders = builders(&parse_sources(&sources).expect("the client parses"));
        let model = Model::build(&doc, &builders).expect("the model builds");
        (doc, model)
    }

    #[test]
    fn cli_summary() {
        let (_, model) = document_and_model();
        insta::assert_snapshot!(model.summary());
    }

    /// Every flag whose help the generator writes itself, because the document does not
    /// describe the field (a body field that gives only a shared type, `NumberOrString`), so
    /// that each reads as a person would say it: reviewed here as a snapshot, and each is
    /// either a noun phrase in English order or a label beside the exact field.
    #[test]
    fn the_help_of_a_field_the_document_does_not_describe_reads_naturally() {
        let (doc, model) = document_and_model();
        let raw = crate::document::Raw(&doc.raw);
        let mut operations = std::collections::BTreeMap::new();
        for item in doc.raw["paths"].as_object().expect("paths").values() {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                if let Some(id) = op.get("operationId").and_then(serde_json::Value::as_str) {
                    operations.insert(id.to_owned(), op);
                }
            }
        }
        let mut lines = Vec::new();
        for op in &model.ops {
            let Some((_, fields)) = &op.body else {
                continue;
            };
            let Some(schema) =
                operations[&op.id].pointer("/requestBody/content/application~1json/schema")
            else {
                continue;
            };
            let resolved = raw.resolve(schema);
            for field in fields {
                let property = &resolved["properties"][&field.wire];
                if property.get("description").is_some()
                    || property.get("$ref").is_none()
                    || raw.union_members(property).is_none()
                {
                    continue;
                }
                let help = model.words.text(&field.help);
                lines.push(format!(
                    "{} {} --{}: {help}",
                    op.group,
                    op.name,
                    super::naming::flag(&field.id),
                ));
                // Never "The product's max amount donating": the field's words after a
                // possessive are a noun phrase in English order.
                if let Some((_, rest)) = help.split_once("'s ")
                    && help.starts_with("The ")
                {
                    let phrase = rest.split(" (").next().unwrap_or_default();
                    let words: Vec<String> = phrase.split(' ').map(str::to_owned).collect();
                    assert!(in_noun_order(&words), "{}", lines.last().expect("pushed"));
                }
            }
        }
        assert!(lines.len() > 20, "the fields are found: {lines:?}");
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn a_field_name_is_said_as_a_noun_phrase_or_as_a_label_beside_the_field() {
        let product = Some("product");
        assert_eq!(
            named_field("sale_price", product),
            "The product's sale price"
        );
        assert_eq!(
            named_field("max_amount_donating", product),
            "Maximum amount donating: the product's `max_amount_donating`"
        );
        assert_eq!(
            named_field("created_at", product),
            "Created at: the product's `created_at`"
        );
        assert_eq!(
            named_field("is_active", product),
            "Is active: the product's `is_active`"
        );
        assert_eq!(named_field("price", Some("product price")), "Price");
        assert_eq!(named_field("min_qty", None), "Minimum quantity");
        // Every property of every request body of the document, said by the rule: a noun
        // phrase in English order after the possessive, else the label and the exact field.
        let root = crate::document::workspace_root();
        let doc = Document::load(&root, crate::document::SPEC).expect("the document loads");
        let schemas = doc.raw["components"]["schemas"]
            .as_object()
            .expect("schemas");
        let mut checked = 0;
        for (name, schema) in schemas {
            let Some(subject) = subject(name) else {
                continue;
            };
            for wire in schema["properties"]
                .as_object()
                .into_iter()
                .flat_map(|p| p.keys())
            {
                let said = named_field(wire, Some(&subject));
                let words: Vec<String> = said
                    .strip_prefix(&format!("The {subject}'s "))
                    .map(|phrase| phrase.split(' ').map(str::to_owned).collect())
                    .unwrap_or_default();
                assert!(
                    in_noun_order(&words)
                        || said.ends_with(&format!("'s `{wire}`"))
                        || !said.contains("'s"),
                    "{name}.{wire}: {said}"
                );
                assert!(
                    !said.contains('_') || said.contains('`'),
                    "{name}.{wire}: {said}"
                );
                checked += 1;
            }
        }
        assert!(checked > 300, "{checked} properties");
    }

    /// The user's words of a description reach help as they are written: every sentence that
    /// holds no note for developers (a word of `DOCUMENT_NOTES`, an extension, a schema's
    /// name, an operationId), of every description of the document, is in its help verbatim.
    #[test]
    fn every_sentence_without_a_developer_note_survives_verbatim() {
        let root = crate::document::workspace_root();
        let doc = Document::load(&root, crate::document::SPEC).expect("the document loads");
        let types: std::collections::BTreeSet<String> = doc.raw["components"]["schemas"]
            .as_object()
            .expect("schemas")
            .keys()
            .cloned()
            .collect();
        let mut ids = std::collections::BTreeSet::new();
        for item in doc.raw["paths"].as_object().expect("paths").values() {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                if let Some(id) = op.get("operationId").and_then(serde_json::Value::as_str) {
                    ids.insert(id.to_owned());
                }
            }
        }
        let words = Words {
            commands: ids
                .iter()
                .map(|id| (id.clone(), "a command".to_owned()))
                .collect(),
            types: types.clone(),
        };
        fn descriptions<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v str>) {
            match value {
                serde_json::Value::Object(map) => {
                    if let Some(text) = map.get("description").and_then(serde_json::Value::as_str) {
                        out.push(text);
                    }
                    map.values().for_each(|v| descriptions(v, out));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| descriptions(v, out)),
                _ => {}
            }
        }
        let mut texts = Vec::new();
        descriptions(&doc.raw["paths"], &mut texts);
        descriptions(&doc.raw["components"], &mut texts);
        let mut checked = 0;
        for text in texts {
            let help = words.paragraphs(text);
            for paragraph in text.trim().split("\n\n") {
                let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
                for sentence in sentences(&paragraph) {
                    let developer = is_note(sentence)
                        || sentence
                            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .any(|w| types.contains(w) || ids.contains(w))
                        || sentence.matches('(').count() != sentence.matches(')').count();
                    if developer {
                        continue;
                    }
                    assert!(
                        help.contains(sentence),
                        "{sentence:?} is lost from\n{text}\n->\n{help}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked} sentences");
    }

    #[test]
    fn a_note_leaves_the_user_s_words_of_its_sentence() {
        // `product-variants update --mpn`: the note is the last clause of the one sentence.
        let mpn = "Manufacturer part number: a string (codes may start with zeros or hold \
                   letters), or an integer as the documented request example sends it \
                   (`43242342`).";
        let kept =
            "Manufacturer part number: a string (codes may start with zeros or hold letters).";
        assert_eq!(user_text(mpn), kept);
        // Beside a sentence without a note, the note's sentence keeps its user's words too.
        assert_eq!(
            user_text(&format!("{mpn} Printed on the box.")),
            format!("{kept} Printed on the box.")
        );
        assert_eq!(
            user_text(&format!("Printed on the box. {mpn}")),
            format!("Printed on the box. {kept}")
        );
        // A note that opens its sentence takes the sentence; the others stay.
        assert_eq!(
            user_text(
                "The option's input type. Required by the documentation's schema, absent from \
                 its request example: assumed optional."
            ),
            "The option's input type."
        );
        // A list cut at its note does not end in a dangling `and`.
        assert_eq!(
            user_text("Known values: `a`, `b`, and, listed by the documentation, `c`. It grows."),
            "Known values: `a`, `b`. It grows."
        );
        // Words that only look like a note are the user's.
        assert_eq!(
            user_text("The suffix of the generated codes (group coupon)."),
            "The suffix of the generated codes (group coupon)."
        );
        // The mpn of the document, in the help of `product-variants update --mpn`.
        let (_, model) = document_and_model();
        let mpn = model
            .ops
            .iter()
            .filter(|op| op.id == "update_product_variant")
            .flat_map(|op| op.body.iter().flat_map(|(_, fields)| fields))
            .find(|f| f.wire == "mpn")
            .expect("--mpn");
        assert!(
            model
                .words
                .text(&mpn.help)
                .contains("codes may start with zeros"),
            "{}",
            mpn.help
        );
    }

    #[test]
    fn command_names_drop_the_group_s_words() {
        let cases = [
            ("list_brands", "Brands", "list"),
            ("get_brand", "Brands", "get"),
            ("list_product_quantities", "Products", "list-quantities"),
            ("list_product_quantities", "Product Quantity", "list"),
            ("get_shipment_tracking", "Shipments", "get-tracking"),
            ("cancel_shipment", "Shipments", "cancel"),
            ("list_order_shipments", "Shipments", "list-order"),
            ("list_reservations", "Order Reservations", "list"),
            ("list_reservations", "Orders", "list-reservations"),
            ("list_customer_groups", "Customer Groups", "list"),
            ("list_order_statuses", "Order Status", "list"),
            ("change_bulk_order_statuses", "Order Status", "change-bulk"),
            ("export_orders", "Exports", "orders"),
            ("add_customers_to_group", "Customer Groups", "add"),
            (
                "list_customer_loyalty_points",
                "Loyalty Points",
                "list-customer",
            ),
            ("create_digital_codes", "Digitals Product", "create-codes"),
            ("list_categories", "Categories", "list"),
            ("list_shipping_companies", "Shipping Companies", "list"),
            ("get_shipping_rule", "Shipping Routes", "get-rule"),
            ("unsubscribe_webhooks", "Webhooks", "unsubscribe"),
            ("list_webhook_events", "Webhooks", "list-events"),
            ("add_languages", "Languages", "add"),
            (
                "update_product_variant_quantity",
                "Product Variants",
                "update-quantity",
            ),
            ("list_branch_allocations", "Branches Allocations", "list"),
            ("list_addresses", "Addresses", "list"),
            ("export", "Exports", "export"),
        ];
        for (id, tag, expected) in cases {
            assert_eq!(command_name(id, tag), expected, "{id} in {tag}");
        }
        // The names of earlier versions, kept as hidden aliases.
        assert_eq!(
            earlier_command_name("add_customers_to_group", "Customer Groups"),
            "add-customers-to-group"
        );
        assert_eq!(
            earlier_command_name("export_orders", "Exports"),
            "export-orders"
        );
    }

    #[test]
    fn group_names_are_english_compounds() {
        assert_eq!(group_name("Digitals Product"), "digital-products");
        assert_eq!(group_name("Branches Allocations"), "branch-allocations");
        assert_eq!(group_name("Customer Groups"), "customer-groups");
        assert_eq!(group_name("Order Status"), "order-status");
        assert_eq!(group_name("DNS Records"), "dns-records");
        assert_eq!(group_name("Custom URLs"), "custom-urls");
        assert_eq!(group_name("Shipping Companies"), "shipping-companies");
        assert_eq!(
            group_name("Product Option Templates"),
            "product-option-templates"
        );
    }

    #[test]
    fn help_for_users_leaves_out_notes_about_the_document() {
        assert_eq!(
            user_text(
                "Free text search. It matches the name or a tag (the service's documentation \
                 lists these fields; they are taken here as the fields searched, not as values)."
            ),
            "Free text search. It matches the name or a tag."
        );
        assert_eq!(
            user_text("How many items. The documentation's example sends it as a string."),
            "How many items."
        );
        assert_eq!(
            first_sentence(
                "The store's orders: creating an order (also as a\ndraft), and more. Second one."
            ),
            "The store's orders: creating an order (also as a draft), and more."
        );
    }

    #[test]
    fn help_names_commands_not_operation_ids_and_leaves_out_type_names() {
        let words = Words {
            commands: [
                ("list_order_statuses", "order-status list"),
                ("create_order_item", "order-items create"),
                ("export", "exports export"),
            ]
            .into_iter()
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect(),
            types: ["OrderPaymentMethod", "AffiliateCampaignInput", "Webhook"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
        };
        assert_eq!(
            words.text("Ids from `list_order_statuses`; fill it with create_order_item."),
            "Ids from `order-status list`; fill it with `order-items create`."
        );
        // A word that is an operationId without `_` is a word unless quoted.
        assert_eq!(words.text("Export the file."), "Export the file.");
        assert_eq!(
            words.text("Only orders paid so (see `OrderPaymentMethod`)."),
            "Only orders paid so."
        );
        assert_eq!(
            words.text("One of two shapes: the current one (`AffiliateCampaignInput`: a title)."),
            "One of two shapes: the current one (a title)."
        );
        assert_eq!(
            words.text("A condition. See `Webhook.rule` for its form."),
            "A condition."
        );
        // Notes for developers.
        assert_eq!(
            words.text(
                "Comparison operator: `=` or `<`. (An open string: the operators cannot be enum \
                 variant names.)"
            ),
            "Comparison operator: `=` or `<`."
        );
        assert_eq!(
            words.text(
                "Id of the option. The schema declares a string, its example sends an integer."
            ),
            "Id of the option."
        );
        // Every sentence a note: the part before it.
        assert_eq!(
            words.text(
                "Global trade item number (barcode number): a string, or an integer as the \
                 documented request example sends it (`54353453`)."
            ),
            "Global trade item number (barcode number): a string."
        );
        assert_eq!(
            words.text(
                "The order's reference number (the number shown to the store owner), which the \
                 documentation says may identify the order instead of its id."
            ),
            "The order's reference number (the number shown to the store owner)."
        );
        assert_eq!(
            words.paragraphs("First `list_order_statuses`.\n\nThe documentation says so.\n\nLast."),
            "First `order-status list`.\n\nLast."
        );
    }

    #[test]
    fn a_value_list_is_said_once() {
        use super::emit::flag_help;
        let words = Words::default();
        let known = Values::Known(vec!["a.b".into(), "c.d".into(), "e.f".into(), "g.h".into()]);
        assert_eq!(
            flag_help(&words, "Events: `a.b`, `c.d`, `e.f`.", &known, false, ""),
            "Events: `a.b`, `c.d`, `e.f`. Also `g.h`."
        );
        assert_eq!(
            flag_help(&words, "An event.", &known, true, ""),
            "An event. [known values: a.b, c.d, e.f, g.h (others accepted)] [required]"
        );
    }

    #[test]
    fn a_field_that_gives_only_a_shared_type_says_what_it_is() {
        let doc: serde_json::Value = serde_json::json!({
            "components": {"schemas": {
                "NumberOrString": {
                    "description": "A decimal value ... avoid binary floating point for money.",
                    "anyOf": [{"type": "number"}, {"type": "string"}]
                },
                "IntegerOrString": {
                    "anyOf": [{"type": "integer"}, {"type": "string"}]
                }
            }}
        });
        let raw = crate::document::Raw(&doc);
        let money = serde_json::json!({"$ref": "#/components/schemas/NumberOrString"});
        let id = serde_json::json!({"$ref": "#/components/schemas/IntegerOrString"});
        let described = serde_json::json!({"description": "What the product costs (the examples send strings)."});
        let record = vec![("cost_price".to_owned(), &described)];
        let product = Some("product");
        assert_eq!(
            field_help(&raw, &money, "cost_price", &record, product).as_deref(),
            Some("What the product costs (a decimal, e.g. 149.50).")
        );
        assert_eq!(
            field_help(&raw, &money, "sale_price", &record, product).as_deref(),
            Some("The product's sale price (a decimal, e.g. 149.50).")
        );
        assert_eq!(
            field_help(&raw, &money, "price", &[], Some("product price")).as_deref(),
            Some("Price (a decimal, e.g. 149.50).")
        );
        assert_eq!(
            field_help(&raw, &money, "max_amount_donating", &[], product).as_deref(),
            Some(
                "Maximum amount donating: the product's `max_amount_donating` (a decimal, e.g. \
                 149.50)."
            )
        );
        assert_eq!(
            field_help(&raw, &id, "identifier", &[], Some("order item")).as_deref(),
            Some("The order item's identifier (a number or a text, e.g. 1024 or A-12).")
        );
        // A field with its own description keeps it.
        let own = serde_json::json!({"description": "The price.", "allOf": [money]});
        assert_eq!(field_help(&raw, &own, "price", &[], product), None);
        assert_eq!(
            subject("CreateOrderItemRequest").as_deref(),
            Some("order item")
        );
        assert_eq!(subject("ProductOptionValueInput"), None);
    }

    #[test]
    fn identifiers() {
        assert_eq!(pascal("customer-groups"), "CustomerGroups");
        assert_eq!(snake("categories[]"), "categories");
        assert_eq!(snake("sortBy"), "sort_by");
    }
}
