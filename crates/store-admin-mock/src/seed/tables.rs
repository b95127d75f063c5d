//! Hand-made seed tables: the resources where a table reads better than generated values
//! (products with options and variants, orders in every status, shipments in several states,
//! shipping companies, rules and routes, languages, categories, webhooks), deterministic by the
//! seed. They become records of the store's collections; whatever the document declares that a
//! table does not say is generated from the schema when the record is answered. The first records
//! of a table take the ids the documented request examples name (`data/documented_ids.json`: the
//! order, brands, branches and shipping company of the examples), so those requests are accepted.

use std::collections::{HashMap, HashSet};

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

use super::model::*;
use crate::fake::stable_hash;
use crate::formats::money_string;
use crate::store::{Store, value_as_f64};

/// The built-in order status slugs (the document's `OrderStatusSlug`) with (parent slug, built-in
/// Arabic name).
pub(crate) const STATUS_SLUGS: &[(&str, Option<&str>, &str)] = &[
    ("payment_pending", None, "بإنتظار الدفع"),
    ("under_review", None, "بإنتظار المراجعة"),
    ("in_progress", None, "قيد التنفيذ"),
    ("completed", None, "تم التنفيذ"),
    ("delivering", Some("completed"), "جاري التوصيل"),
    ("delivered", Some("completed"), "تم التوصيل"),
    ("shipped", Some("completed"), "تم الشحن"),
    ("canceled", None, "ملغي"),
    ("restored", None, "مسترجع"),
    ("restoring", None, "قيد الإسترجاع"),
];

/// Languages the store can add: (iso code, native name, country code, right to left).
pub(crate) const LANGUAGE_CATALOGUE: &[(&str, &str, &str, bool)] = &[
    ("ar", "العربية", "sa", true),
    ("en", "English", "gb", false),
    ("fr", "Français", "fr", false),
    ("de", "Deutsch", "de", false),
    ("es", "Español", "es", false),
    ("tr", "Türkçe", "tr", false),
    ("ur", "اردو", "pk", true),
    ("fa", "فارسی", "ir", true),
    ("id", "Bahasa Indonesia", "id", false),
    ("hi", "हिन्दी", "in", false),
    ("it", "Italiano", "it", false),
    ("fi", "suomen kieli", "fi", false),
    ("el", "Ελληνικά", "gr", false),
    ("ru", "Русский", "ru", false),
    ("zh", "中文", "cn", false),
    ("bn", "বাংলা", "bd", false),
    ("ms", "Bahasa Melayu", "my", false),
    ("pt", "Português", "pt", false),
];

/// The first word of a product's name: a word of a range, fit for any product. As many as the
/// draw of the seed's generator takes (15), so that what the seed draws after a name stays.
const ADJECTIVES: &[&str] = &[
    "Classic",
    "Premium",
    "Essential",
    "Deluxe",
    "Everyday",
    "Signature",
    "Royal",
    "Urban",
    "Select",
    "Original",
    "Modern",
    "Heritage",
    "Desert",
    "Golden",
    "Elite",
];
/// What a product is, and the words that tell one of its kind from another ("Leather Watch",
/// "Sidr Honey"): a product's name is a range word, one of these words and the noun, each name
/// of the seed's catalogue different from the others while the words allow (15 x 8 per noun).
const NOUNS: &[(&str, [&str; 8])] = &[
    (
        "T-Shirt",
        [
            "Cotton",
            "Linen",
            "Striped",
            "Oversized",
            "Crew Neck",
            "V-Neck",
            "Graphic",
            "Polo",
        ],
    ),
    (
        "Dress",
        [
            "Evening",
            "Summer",
            "Maxi",
            "Floral",
            "Linen",
            "Wrap",
            "Embroidered",
            "Satin",
        ],
    ),
    (
        "Abaya",
        [
            "Black",
            "Embroidered",
            "Open",
            "Crepe",
            "Linen",
            "Kimono",
            "Pleated",
            "Lace",
        ],
    ),
    (
        "Perfume",
        [
            "Oud",
            "Rose",
            "Musk",
            "Amber",
            "Jasmine",
            "Sandalwood",
            "Citrus",
            "Vanilla",
        ],
    ),
    (
        "Coffee",
        [
            "Arabic",
            "Espresso",
            "Turkish",
            "Cardamom",
            "Colombian",
            "Ethiopian",
            "Decaf",
            "Saffron",
        ],
    ),
    (
        "Dates",
        [
            "Sukkari", "Ajwa", "Khalas", "Medjool", "Safawi", "Sagai", "Stuffed", "Mabroom",
        ],
    ),
    (
        "Watch",
        [
            "Leather",
            "Steel",
            "Chronograph",
            "Diver",
            "Quartz",
            "Automatic",
            "Sport",
            "Dress",
        ],
    ),
    (
        "SSD",
        [
            "Portable",
            "External",
            "NVMe",
            "Compact",
            "Rugged",
            "Slim",
            "High-Speed",
            "Gaming",
        ],
    ),
    (
        "Headphones",
        [
            "Wireless",
            "Noise-Cancelling",
            "Studio",
            "Sport",
            "Kids",
            "Over-Ear",
            "Foldable",
            "Gaming",
        ],
    ),
    (
        "Backpack",
        [
            "Travel", "Laptop", "School", "Hiking", "Leather", "Canvas", "Roll-Top", "Kids",
        ],
    ),
    (
        "Notebook",
        [
            "Ruled",
            "Dotted",
            "Leather",
            "Spiral",
            "Pocket",
            "Sketch",
            "Hardcover",
            "Recycled",
        ],
    ),
    (
        "Mug",
        [
            "Ceramic",
            "Travel",
            "Enamel",
            "Glass",
            "Stoneware",
            "Insulated",
            "Espresso",
            "Handmade",
        ],
    ),
    (
        "Sandals",
        [
            "Leather", "Beach", "Sport", "Flat", "Platform", "Slide", "Kids", "Strappy",
        ],
    ),
    (
        "Scarf",
        [
            "Silk", "Wool", "Cotton", "Cashmere", "Chiffon", "Printed", "Knit", "Linen",
        ],
    ),
    (
        "Oud",
        [
            "Cambodian",
            "Indian",
            "Muattar",
            "Hindi",
            "Malaysian",
            "Aged",
            "Wild",
            "Seufi",
        ],
    ),
    (
        "Honey",
        [
            "Sidr",
            "Wildflower",
            "Acacia",
            "Talh",
            "Raw",
            "Mountain",
            "Manuka",
            "Black Seed",
        ],
    ),
    (
        "Lamp",
        [
            "Desk", "Floor", "Bedside", "Brass", "Rattan", "Ceramic", "Reading", "Lantern",
        ],
    ),
    (
        "Charger",
        [
            "Fast",
            "Wireless",
            "Car",
            "Dual-Port",
            "Travel",
            "Magnetic",
            "Solar",
            "Compact",
        ],
    ),
];
const CATEGORY_NAMES: &[&str] = &[
    "Clothes",
    "Perfumes",
    "Food",
    "Electronics",
    "Accessories",
    "Home",
    "Books",
    "Gifts",
    "Shoes",
    "Beauty",
];
const BRAND_NAMES: &[&str] = &[
    "Nadec",
    "Almarai",
    "Arabian Oud",
    "Samsung",
    "Apple",
    "Jarir",
    "Nahdi",
    "Lulu",
];
const TAG_NAMES: &[&str] = &[
    "sale",
    "new",
    "summer",
    "winter",
    "gift",
    "bestseller",
    "eid",
    "ramadan",
];
const BRANCH_NAMES: &[&str] = &[
    "Main Branch",
    "Jeddah Branch",
    "Dammam Branch",
    "Riyadh Warehouse",
];
/// Branches beyond [`BRANCH_NAMES`], for the documented branch ids left over (the documented
/// allocation settings name seven branches). Their ids are not drawn from the seed's sequence.
const MORE_BRANCH_NAMES: &[&str] = &[
    "Khobar Branch",
    "Mecca Branch",
    "Medina Branch",
    "Abha Branch",
    "Tabuk Branch",
];
const CITIES: &[(&str, &str)] = &[
    ("SA", "Riyadh"),
    ("SA", "Jeddah"),
    ("SA", "Dammam"),
    ("KW", "Kuwait"),
    ("AE", "Dubai"),
];
const OPTION_SETS: &[(&str, &[&str])] = &[
    ("Size", &["S", "M", "L", "XL"]),
    ("Color", &["red", "black", "white", "blue"]),
    ("Capacity", &["128G", "256G", "512G"]),
    ("Speed", &["Fast", "Slow"]),
];
/// What the seed's orders pay for shipping (their total is their items' plus this).
pub(crate) const SHIPPING_COST: f64 = 25.0;
const PAYMENT_METHODS: &[&str] = &["bank", "mada", "credit_card", "cod", "apple_pay", "stc_pay"];

/// The seed tables, typed while they are built.
pub(crate) struct Tables {
    rng: StdRng,
    used_ids: HashSet<i64>,
    /// The ids the documented request examples name, by their field (`order_id`, `brand_id`,
    /// ...), not yet given to a record: the first records of the tables take them.
    documented: HashMap<String, std::collections::VecDeque<i64>>,
    pub merchant_id: i64,
    pub products: Vec<Product>,
    product_index: HashMap<i64, usize>,
    /// The names of the catalogue's products so far (each new one differs from them).
    product_names: HashSet<String>,
    pub categories: Vec<Category>,
    pub brands: Vec<Named>,
    pub tags: Vec<Named>,
    pub branches: Vec<Named>,
    pub order_statuses: Vec<OrderStatus>,
    pub orders: Vec<Order>,
    pub reservations: Vec<Reservation>,
    pub shipping_companies: Vec<ShippingCompany>,
    pub shipping_rules: Vec<ShippingRule>,
    /// Shipping routes, kept as the document's JSON (they are read-only in the mock).
    pub shipping_routes: Vec<Value>,
    pub shipments: Vec<Shipment>,
    pub languages: Vec<Language>,
    pub webhooks: Vec<Webhook>,
}

/// The documented ids (`data/documented_ids.json`) by field, in the file's order.
fn documented_ids() -> HashMap<String, std::collections::VecDeque<i64>> {
    let pairs: Vec<(String, i64)> =
        serde_json::from_str(include_str!("data/documented_ids.json")).unwrap_or_default();
    let mut by_field: HashMap<String, std::collections::VecDeque<i64>> = HashMap::new();
    for (field, id) in pairs {
        by_field.entry(field).or_default().push_back(id);
    }
    by_field
}

fn pick<'a, T>(rng: &mut StdRng, items: &'a [T]) -> &'a T {
    // Every list passed here is a non-empty constant or checked by the caller.
    items.choose(rng).unwrap_or(&items[0])
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

impl Tables {
    /// A fresh id: 9 to 10 digits like the service's, never reused.
    pub fn new_id(&mut self) -> i64 {
        loop {
            let id = self.rng.random_range(100_000_000..2_147_483_647_i64);
            if self.used_ids.insert(id) {
                return id;
            }
        }
    }

    /// The id of the next record a documented request example names by `field` (`order_id`,
    /// `brand_id`, `branch_id`, `company_id`), else a fresh one. A fresh id is drawn either way, so
    /// that every other seeded value stays as it was.
    fn documented_or_new_id(&mut self, field: &str) -> i64 {
        let drawn = self.new_id();
        self.take_documented(field).unwrap_or(drawn)
    }

    /// The next documented id of `field` not given yet, if any (reserved from then on).
    fn take_documented(&mut self, field: &str) -> Option<i64> {
        let id = self.documented.get_mut(field)?.pop_front()?;
        self.used_ids.insert(id);
        Some(id)
    }

    /// An id derived from `parts` (not drawn from the seed's sequence, so that adding one leaves
    /// every other seeded value as it was), never reused.
    fn derived_id(&mut self, parts: &[&str]) -> i64 {
        let mut salt = 0_u32;
        loop {
            let salt_text = salt.to_string();
            let mut all: Vec<&str> = parts.to_vec();
            all.push(&salt_text);
            let id = 100_000_000 + (stable_hash(&all) % 2_047_483_647) as i64;
            if self.used_ids.insert(id) {
                return id;
            }
            salt += 1;
        }
    }

    /// Generates the whole store from `seed`.
    pub fn seeded(seed: u64, product_count: usize, merchant_id: Option<i64>) -> Self {
        let mut store = Tables {
            rng: StdRng::seed_from_u64(seed),
            used_ids: HashSet::new(),
            documented: documented_ids(),
            merchant_id: 0,
            products: Vec::new(),
            product_index: HashMap::new(),
            product_names: HashSet::new(),
            categories: Vec::new(),
            brands: Vec::new(),
            tags: Vec::new(),
            branches: Vec::new(),
            order_statuses: Vec::new(),
            orders: Vec::new(),
            reservations: Vec::new(),
            shipping_companies: Vec::new(),
            shipping_rules: Vec::new(),
            shipping_routes: Vec::new(),
            shipments: Vec::new(),
            languages: Vec::new(),
            webhooks: Vec::new(),
        };
        store.merchant_id = merchant_id.unwrap_or_else(|| store.new_id());
        store.seed_catalogue();
        for index in 0..product_count {
            let product = store.seed_product(index);
            store.add_product(product);
        }
        store.seed_statuses();
        store.seed_orders();
        store.seed_reservations();
        store.seed_shipping();
        store.seed_languages();
        store.seed_webhooks();
        store
    }

    pub fn add_product(&mut self, product: Product) {
        self.product_index.insert(product.id, self.products.len());
        self.products.push(product);
    }

    fn seed_catalogue(&mut self) {
        for (i, name) in CATEGORY_NAMES.iter().enumerate() {
            let id = self.new_id();
            let parent_id = if i >= 6 {
                self.categories.first().map_or(0, |c| c.id)
            } else {
                0
            };
            self.categories.push(Category {
                id,
                name: (*name).to_owned(),
                parent_id,
                status: if i % 4 == 3 {
                    "hidden".into()
                } else {
                    "active".into()
                },
                sort_order: i as i64,
                metadata_title: (*name).to_owned(),
                metadata_description: format!("All about {name}"),
                metadata_url: name.to_lowercase(),
            });
        }
        for name in BRAND_NAMES {
            let id = self.documented_or_new_id("brand_id");
            self.brands.push(Named {
                id,
                name: (*name).to_owned(),
            });
        }
        for name in TAG_NAMES {
            let id = self.new_id();
            self.tags.push(Named {
                id,
                name: (*name).to_owned(),
            });
        }
        for name in BRANCH_NAMES {
            let id = self.documented_or_new_id("branch_id");
            self.branches.push(Named {
                id,
                name: (*name).to_owned(),
            });
        }
        for name in MORE_BRANCH_NAMES {
            let Some(id) = self.take_documented("branch_id") else {
                break;
            };
            self.branches.push(Named {
                id,
                name: (*name).to_owned(),
            });
        }
    }

    /// A product's name: the range word, a word of the noun's kinds and the noun ("Signature
    /// Leather Watch"), the first kind from the product's index on that no product of the
    /// catalogue is named with yet (every kind taken: the product's own, a name shared).
    fn product_name(
        &mut self,
        index: usize,
        adjective: &str,
        noun: &str,
        kinds: &[&str],
    ) -> String {
        let name = |k: usize| format!("{adjective} {} {noun}", kinds[(index + k) % kinds.len()]);
        let chosen = (0..kinds.len())
            .map(name)
            .find(|n| !self.product_names.contains(n))
            .unwrap_or_else(|| name(0));
        self.product_names.insert(chosen.clone());
        chosen
    }

    fn seed_product(&mut self, index: usize) -> Product {
        let id = self.new_id();
        let adjective = *pick(&mut self.rng, ADJECTIVES);
        let (noun, kinds) = *pick(&mut self.rng, NOUNS);
        let name = self.product_name(index, adjective, noun, &kinds);
        let kind = match index % 10 {
            7 => "service",
            8 => "digital",
            _ => "product",
        };
        let image = match index % 9 {
            0 => Some(String::new()),
            4 => None,
            _ => Some(format!("https://cdn.example/products/{id}.jpg")),
        };
        let price = round2(self.rng.random_range(5.0..2000.0));
        let category_count = self.rng.random_range(1..=2);
        let categories = (0..category_count)
            .map(|_| pick(&mut self.rng, &self.categories).id)
            .collect::<HashSet<_>>();
        let mut categories: Vec<i64> = categories.into_iter().collect();
        categories.sort_unstable();
        let brand = if index % 5 == 4 {
            None
        } else {
            Some(pick(&mut self.rng, &self.brands).id)
        };
        let tag_count = self.rng.random_range(0..=2);
        let mut tags: Vec<i64> = (0..tag_count)
            .map(|_| pick(&mut self.rng, &self.tags).id)
            .collect();
        tags.sort_unstable();
        tags.dedup();
        let mut branches: Vec<i64> = self
            .branches
            .iter()
            .map(|b| b.id)
            .filter(|_| self.rng.random_bool(0.6))
            .collect();
        if branches.is_empty() {
            branches.push(self.branches.first().map_or(0, |b| b.id));
        }
        let unlimited_quantity = index % 6 == 5 || kind != "product" && index.is_multiple_of(2);
        let mut product = Product {
            id,
            name,
            kind,
            image,
            sku: if index % 7 == 3 {
                None
            } else {
                Some(format!("SKU-{:05}", index + 1))
            },
            quantity: if unlimited_quantity {
                0
            } else {
                self.rng.random_range(0..500)
            },
            sold_quantity: self.rng.random_range(0..400),
            price,
            price_as_string: index % 2 == 1,
            unlimited_quantity,
            categories,
            brand,
            tags,
            branches,
            options: Vec::new(),
            variants: Vec::new(),
        };
        // About a third of the products have one or two options, and variants for each combination.
        if index % 3 == 1 {
            let option_count = if index.is_multiple_of(2) { 2 } else { 1 };
            let first = self.rng.random_range(0..OPTION_SETS.len());
            for k in 0..option_count {
                let (option_name, values) = OPTION_SETS[(first + k) % OPTION_SETS.len()];
                let take = self.rng.random_range(2..=values.len());
                let values: Vec<(String, f64)> = values[..take]
                    .iter()
                    .map(|v| ((*v).to_owned(), 0.0))
                    .collect();
                self.add_option(&mut product, OptionSpec::text(option_name, values));
            }
        }
        product
    }

    /// Adds an option to `product`; for products of type `product`, its variants become every
    /// combination of option values (each old variant is split into one per new value).
    pub fn add_option(&mut self, product: &mut Product, spec: OptionSpec) -> i64 {
        let OptionSpec {
            name,
            description,
            required,
            display_type,
            visibility,
            values,
        } = spec;
        let option_id = self.new_id();
        let values: Vec<OptionValue> = values
            .iter()
            .map(|(value_name, price)| OptionValue {
                id: self.new_id(),
                name: value_name.clone(),
                price: *price,
                option_id,
                image_url: String::new(),
            })
            .collect();
        let sort = Some(product.options.len() as i64);
        product.options.push(ProductOption {
            id: option_id,
            name,
            description,
            required,
            sort,
            display_type,
            visibility,
            values: values.clone(),
        });
        if product.kind != "product" || values.is_empty() {
            return option_id;
        }
        let previous: Vec<Variant> = if product.variants.is_empty() {
            vec![Variant {
                id: 0,
                sku_id_as_string: false,
                price: product.price,
                regular_price: product.price,
                sale_price: 0.0,
                cost_price: 0.0,
                stock_quantity: product.quantity,
                barcode: String::new(),
                sku: product.sku.clone().unwrap_or_default(),
                related_option_values: Vec::new(),
                weight: 0.5,
            }]
        } else {
            std::mem::take(&mut product.variants)
        };
        for base in &previous {
            for value in &values {
                let id = self.new_id();
                let mut related = base.related_option_values.clone();
                related.push(value.id);
                let sku_base = if base.sku.is_empty() {
                    format!("P{}", product.id)
                } else {
                    base.sku.clone()
                };
                product.variants.push(Variant {
                    id,
                    sku_id_as_string: id % 4 == 0,
                    price: round2(base.price + value.price),
                    regular_price: round2(base.regular_price + value.price),
                    sale_price: base.sale_price,
                    cost_price: base.cost_price,
                    stock_quantity: base.stock_quantity / values.len().max(1) as i64,
                    barcode: format!("{id:013}"),
                    sku: format!("{sku_base}-{}", value.name.to_lowercase().replace(' ', "-")),
                    related_option_values: related,
                    weight: base.weight,
                });
            }
        }
        option_id
    }

    fn seed_statuses(&mut self) {
        let mut by_slug: HashMap<&str, (i64, String)> = HashMap::new();
        for (sort, (slug, parent, original_name)) in STATUS_SLUGS.iter().enumerate() {
            let original_id = self.new_id();
            let customized = sort % 3 == 1;
            let id = if customized {
                self.new_id()
            } else {
                original_id
            };
            let name = if customized {
                format!("{original_name} ✓")
            } else {
                (*original_name).to_owned()
            };
            let parent = parent.and_then(|p| by_slug.get(p).cloned());
            by_slug.insert(slug, (id, name.clone()));
            self.order_statuses.push(OrderStatus {
                id,
                name,
                slug,
                sort: sort as i64,
                message: if sort == 0 {
                    "[ {store.name} ] \\n أصبحت حالة طلبك {order.id} {status}".to_owned()
                } else {
                    String::new()
                },
                is_active: *slug != "shipped",
                parent,
                original: (original_id, (*original_name).to_owned()),
                customized,
            });
        }
    }

    fn seed_orders(&mut self) {
        let status_ids: Vec<i64> = self.order_statuses.iter().map(|s| s.id).collect();
        let mut reference = 40_497_000;
        for (i, status_id) in status_ids
            .iter()
            .cycle()
            .take(status_ids.len() * 6)
            .enumerate()
        {
            reference += 1 + self.rng.random_range(0..5);
            let id = self.documented_or_new_id("order_id");
            let item_count = self.rng.random_range(1..=3);
            let mut items = Vec::new();
            let mut sub_total = 0.0;
            for _ in 0..item_count {
                if self.products.is_empty() {
                    break;
                }
                let index = self.rng.random_range(0..self.products.len());
                let product = &self.products[index];
                let quantity = self.rng.random_range(1..=3);
                sub_total += product.price * quantity as f64;
                let (product_id, price, name, sku, kind, thumbnail) = (
                    product.id,
                    product.price,
                    product.name.clone(),
                    product.sku.clone(),
                    product.kind,
                    product.image.clone().filter(|s| !s.is_empty()),
                );
                items.push(OrderItem {
                    id: self.derived_id(&[&id.to_string(), &items.len().to_string()]),
                    product_id,
                    name,
                    sku,
                    kind,
                    price,
                    quantity,
                    thumbnail,
                });
            }
            let (country, city) = *pick(&mut self.rng, CITIES);
            let payment_method = (*pick(&mut self.rng, PAYMENT_METHODS)).to_owned();
            let day = 1 + (i % 28);
            let month = 1 + (i / 28) % 12;
            let branch_id = pick(&mut self.rng, &self.branches).id;
            let tag = pick(&mut self.rng, &self.tags).id;
            self.orders.push(Order {
                id,
                reference_id: reference,
                total: round2(sub_total + SHIPPING_COST),
                exchange_rate: if i % 4 == 0 { Some(0.266592) } else { None },
                created_at: format!(
                    "2024-{month:02}-{day:02} {:02}:{:02}:20",
                    8 + i % 12,
                    i % 60
                ),
                status_id: *status_id,
                is_pending_payment: i % status_ids.len() == 0,
                payment_method,
                digitalable: i % 5 == 0,
                shippable: i % 5 != 0,
                items,
                customer_id: 1_000_000 + (i as i64 % 17),
                branch_id,
                tags: if i % 3 == 0 { vec![tag] } else { Vec::new() },
                country: country.to_owned(),
                city: city.to_owned(),
                coupon_code: if i % 7 == 0 {
                    Some("EID10".to_owned())
                } else {
                    None
                },
                source: if i % 4 == 1 {
                    // The document's known value for the store's app (`OrderSource`).
                    "mahly-app".into()
                } else {
                    "store".into()
                },
                shipping_company_id: None,
                employee_ids: if i % 5 == 2 { vec![77] } else { Vec::new() },
                unread: i % 6 == 0,
                sent_to_accounting: i % 2 == 0,
                channel: ["store", "pos", "marketplace"][i % 3].to_owned(),
                created_by: if i % 4 == 3 { Some(77) } else { None },
            });
        }
    }

    fn seed_reservations(&mut self) {
        for i in 0..20_i64 {
            let id = self.new_id();
            let day = 10 + (i % 18);
            let (kind, start, end) = if i % 2 == 0 {
                (
                    "day",
                    format!("2024-02-{day:02}T00:00:00"),
                    format!("2024-02-{day:02}T23:59:59"),
                )
            } else {
                let hour = 9 + i % 8;
                (
                    "time",
                    format!("2024-02-{day:02}T{hour:02}:00:00"),
                    format!("2024-02-{day:02}T{hour:02}:30:00"),
                )
            };
            self.reservations.push(Reservation {
                id,
                title: format!("تعليم القيادة ({})", i + 1),
                kind,
                start,
                end,
                seats: 1 + i % 3,
                with_seats_count: i % 3 != 2,
                order_token: format!("{:032x}", self.rng.random::<u128>()),
                created_at: format!("2024-02-{:02} 13:48:33", 1 + i % 9),
            });
        }
    }

    fn seed_shipping(&mut self) {
        let companies: &[(&str, &str, bool)] = &[
            ("سمسا", "smsa", true),
            ("ارامكس", "armx", true),
            ("DHL Express", "dhl-express", false),
            ("UPS", "ups", false),
            ("Ajeek", "ajeek", false),
            ("سلاسة", "slsh", true),
        ];
        for (name, slug, manual) in companies {
            let id = self.documented_or_new_id("company_id");
            let app_id = self
                .rng
                .random_range(10_000_000..2_000_000_000_i64)
                .to_string();
            self.shipping_companies.push(ShippingCompany {
                id,
                name: (*name).to_owned(),
                app_id,
                manual: *manual,
                slug: (*slug).to_owned(),
            });
        }
        let company_ids: Vec<i64> = self.shipping_companies.iter().map(|c| c.id).collect();
        let category = self
            .categories
            .first()
            .map_or("Dress".to_owned(), |c| c.name.clone());
        let rules: Vec<(&str, Vec<Restriction>)> = vec![
            (
                "Cart over 100",
                vec![("cart-price".into(), Some(">=".into()), json!(100))],
            ),
            ("Perfumes", vec![("category".into(), None, json!(category))]),
            (
                "VIP customers",
                vec![("customer-group".into(), None, json!("VIP"))],
            ),
            (
                "CPSAVIP",
                vec![
                    ("cart-price".into(), Some("==".into()), json!(100)),
                    ("category".into(), None, json!("Dress")),
                    ("customer-group".into(), None, json!("VIP")),
                ],
            ),
        ];
        for (i, (title, restrictions)) in rules.into_iter().enumerate() {
            let id = self.new_id();
            self.shipping_rules.push(ShippingRule {
                id,
                title: title.to_owned(),
                status: if i == 2 {
                    "inactive".into()
                } else {
                    "active".into()
                },
                company_ids: company_ids.iter().copied().skip(i).take(2).collect(),
                restrictions,
            });
        }
        let route_kinds = [
            ("Riyadh Route", "branded", "ratio"),
            ("Default Route", "default", "default"),
            ("Auto Route", "auto", "quota"),
        ];
        for (i, (name, kind, strategy)) in route_kinds.iter().enumerate() {
            let id = self.new_id();
            let companies: Vec<Value> = company_ids
                .iter()
                .skip(i)
                .take(3)
                .enumerate()
                .map(|(p, id)| json!({ "id": id, "priority": p + 1, "capacity": if p == 0 { 80 } else { 10 } }))
                .collect();
            let category = self
                .categories
                .first()
                .map(|c| json!({ "id": c.id, "name": c.name }));
            let branch = self
                .branches
                .first()
                .map(|b| json!({ "id": b.id, "name": b.name }));
            let mut route = json!({
                "id": id,
                "name": name,
                "priority": i + 1,
                "status": i != 2,
                "type": kind,
                "companies": companies,
                "condition_match": if i == 0 { "all" } else { "any" },
                "conditions": [
                    { "type": "cart_total", "operator": "between", "value": { "min": 200, "max": 500 } },
                    { "type": "cart_weight", "operator": "==", "value": 3 },
                    { "type": "categories", "operator": "in", "value": [category] },
                    { "type": "branches", "operator": "in", "value": [branch] },
                    { "type": "schedule", "operator": "within_range",
                      "value": { "days": ["Sunday"], "time_from": "09:00", "time_to": "14:30" } },
                ],
                "strategy": { "type": strategy, "capacity_level": "route", "alternative_companies": [] },
            });
            if let Some(map) = route.as_object_mut() {
                // The list's summary shows it at the top.
                map.insert("combinable".into(), Value::Bool(*kind == "branded"));
            }
            if *kind == "branded"
                && let Some(map) = route.as_object_mut()
            {
                map.insert("branded".into(), json!({
                    "name": "Express Delivery",
                    "logo_url": "https://cdn.example/logos/express.png",
                    "description": "Fast delivery for premium customers",
                    "combinable": true,
                    "pricing": { "type": "rate", "cost": 30, "amount_per_unit": 2, "up_to_weight": 15, "per_unit": 1 },
                }));
            }
            self.shipping_routes.push(route);
        }
        let statuses = [
            "creating",
            "created",
            "in_progress",
            "delivering",
            "delivered",
            "delivered",
            "cancelled",
            "shipped",
        ];
        let orders: Vec<(i64, i64)> = self
            .orders
            .iter()
            .take(16)
            .map(|o| (o.id, o.reference_id))
            .collect();
        for (i, (order_id, reference_id)) in orders.into_iter().enumerate() {
            let company = self.shipping_companies[i % self.shipping_companies.len()].clone();
            let status = statuses[i % statuses.len()];
            let branch_id = self.branches.first().map_or(0, |b| b.id);
            let shipment = self.make_shipment(ShipmentInput {
                order_id,
                order_reference_id: reference_id,
                kind: if i % 5 == 4 { "return" } else { "shipment" }.into(),
                company: &company,
                payment_method: if i % 2 == 0 { "cod" } else { "pre_paid" }.into(),
                status: status.into(),
                cash_on_delivery: 10.7,
                ship_from: json!({
                    "type": "branch", "name": "Riyadh", "email": "", "phone": "0555555555",
                    "country": "السعودية", "city": "RIYADH", "address_line": "7687 طريق الملك فهد الفرعي",
                    "street_number": "7687", "block": "الملك فهد", "postal_code": "12262",
                    "latitude": 24.7431373, "longitude": 46.6570741, "branch_id": branch_id,
                }),
                ship_to: json!({
                    "type": "address", "name": "Mohammed Khalid", "email": "customer@example.com",
                    "phone": "966501636784", "country": "السعودية", "city": "Mecca",
                    "address_line": "شارع عبدالله سنابل السلام", "street_number": "2345", "block": "السلام",
                    "postal_code": "95128", "latitude": 21.3825905096851, "longitude": 39.77319103068542,
                }),
                packages: vec![json!({
                    "item_id": 2_077_288_690_i64 + i as i64, "external_id": Value::Null, "name": "منتج تجريبي",
                    "sku": "6ytrrhrhr", "price": money_string(50.0), "quantity": 2,
                    "weight": { "value": "1.00", "unit": "kg" },
                })],
                policy_options: json!({ "boxes": 1 }),
                description: None,
                remarks: None,
                created_at: format!("2024-03-{:02} 10:{:02}:00", 1 + i, i),
            });
            if let Some(order) = self.orders.iter_mut().find(|o| o.id == order_id) {
                order.shipping_company_id = Some(company.id);
            }
            let mut shipment = shipment;
            if i % 3 == 0 {
                shipment.shipping_number = Value::from(0);
                shipment.tracking_number = Value::from(0);
            }
            self.shipments.push(shipment);
        }
    }

    pub fn make_shipment(&mut self, input: ShipmentInput<'_>) -> Shipment {
        let id = self.new_id();
        let number = self.rng.random_range(10_000_000_000_i64..99_999_999_999);
        let total: f64 = input
            .packages
            .iter()
            .map(|p| {
                let price = p
                    .pointer("/price/amount")
                    .and_then(value_as_f64)
                    .unwrap_or(0.0);
                let quantity = p.get("quantity").and_then(Value::as_f64).unwrap_or(1.0);
                price * quantity
            })
            .sum();
        Shipment {
            id,
            order_id: input.order_id,
            order_reference_id: input.order_reference_id,
            created_at: input.created_at.clone(),
            kind: input.kind,
            courier_id: input.company.id,
            courier_name: input.company.name.clone(),
            courier_logo: input.company.logo(),
            shipping_number: Value::from(number.to_string()),
            tracking_number: Value::from(number.to_string()),
            tracking_link: format!("https://track.example/{}/{number}", input.company.slug),
            pickup_id: None,
            payment_method: input.payment_method,
            status: input.status.clone(),
            total: round2(total),
            cash_on_delivery: input.cash_on_delivery,
            policy_options: input.policy_options,
            ship_from: input.ship_from,
            ship_to: input.ship_to,
            packages: input.packages,
            history: vec![(input.status, String::new(), input.created_at)],
            description: input.description,
            remarks: input.remarks,
            label_url: None,
            external_company_name: None,
            cost: None,
        }
    }

    fn seed_languages(&mut self) {
        for (i, (iso, name, country, rtl)) in LANGUAGE_CATALOGUE.iter().take(2).enumerate() {
            self.languages.push(Language {
                id: i as i64 + 1,
                name: (*name).to_owned(),
                rtl: *rtl,
                iso_code: (*iso).to_owned(),
                country_code: (*country).to_owned(),
                sort_order: i as i64,
            });
        }
    }

    fn seed_webhooks(&mut self) {
        let id = self.new_id();
        self.webhooks.push(Webhook {
            id,
            name: "Customer Login".into(),
            event: "customer.login".into(),
            version: 2,
            rule: Some("first_name = `User`".into()),
            url: "https://hooks.example/customer-login".into(),
            headers: vec![("Accept-Language".into(), "AR".into())],
            strategy: None,
            secret: None,
        });
        let id = self.new_id();
        self.webhooks.push(Webhook {
            id,
            name: "Order created".into(),
            event: "order.created".into(),
            version: 1,
            rule: None,
            url: "https://hooks.example/orders".into(),
            headers: Vec::new(),
            strategy: Some("signature".into()),
            secret: Some("seeded-webhook-secret".to_owned().into()),
        });
    }
}

/// A new product option.
pub(crate) struct OptionSpec {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
    pub display_type: String,
    pub visibility: String,
    /// Value names with their extra price.
    pub values: Vec<(String, f64)>,
}

impl OptionSpec {
    /// A required text option shown always.
    pub fn text(name: &str, values: Vec<(String, f64)>) -> Self {
        Self {
            name: name.to_owned(),
            description: None,
            required: true,
            display_type: "text".into(),
            visibility: "always".into(),
            values,
        }
    }
}

/// Parameters of a new shipment.
pub(crate) struct ShipmentInput<'a> {
    pub order_id: i64,
    pub order_reference_id: i64,
    pub kind: String,
    pub company: &'a ShippingCompany,
    pub payment_method: String,
    pub status: String,
    pub cash_on_delivery: f64,
    pub ship_from: Value,
    pub ship_to: Value,
    pub packages: Vec<Value>,
    pub policy_options: Value,
    pub description: Option<String>,
    pub remarks: Option<String>,
    pub created_at: String,
}

/// Collection keys the tables fill (the paths of the document's operations on them).
pub(crate) mod keys {
    pub const PRODUCTS: &str = "/products";
    pub const CATEGORIES: &str = "/categories";
    pub const BRANDS: &str = "/brands";
    pub const TAGS: &str = "/products/tags";
    pub const BRANCHES: &str = "/branches";
    pub const ORDER_STATUSES: &str = "/orders/statuses";
    pub const ORDERS: &str = "/orders";
    pub const RESERVATIONS: &str = "/reservations";
    pub const SHIPPING_COMPANIES: &str = "/shipping/companies";
    pub const SHIPPING_RULES: &str = "/shipping/rules";
    pub const SHIPPING_ROUTES: &str = "/shipping/routes";
    pub const SHIPMENTS: &str = "/shipments";
    pub const LANGUAGES: &str = "/languages";
    pub const WEBHOOKS: &str = "/webhooks";
}

impl Tables {
    /// The store holding the tables as records, its id generator carrying on from the tables'.
    pub fn into_store(self) -> Store {
        use keys::*;
        let mut store = Store::from_parts(self.rng, self.used_ids, self.merchant_id);
        for category in &self.categories {
            store.insert(CATEGORIES, category.to_json(&[]));
        }
        for (key, named) in [
            (BRANDS, &self.brands),
            (TAGS, &self.tags),
            (BRANCHES, &self.branches),
        ] {
            for item in named {
                store.insert(key, json!({ "id": item.id, "name": item.name }));
            }
        }
        for product in &self.products {
            store.insert(PRODUCTS, product.to_record());
        }
        for status in self.order_statuses.iter().rev() {
            store.insert(ORDER_STATUSES, status.to_json());
        }
        // Orders newest last, so that a list (newest first) shows the latest orders first.
        let mut orders: Vec<&Order> = self.orders.iter().collect();
        orders.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        for order in orders {
            let status = self.order_statuses.iter().find(|s| s.id == order.status_id);
            let app_id = order.shipping_company_id.and_then(|company| {
                self.shipping_companies
                    .iter()
                    .find(|c| c.id == company)
                    .and_then(|c| c.app_id.parse::<i64>().ok())
            });
            store.insert(ORDERS, order.to_record(status, app_id));
        }
        for reservation in self.reservations.iter().rev() {
            store.insert(RESERVATIONS, reservation.to_json());
        }
        for company in self.shipping_companies.iter().rev() {
            store.insert(SHIPPING_COMPANIES, company.to_record());
        }
        for rule in &self.shipping_rules {
            store.insert(SHIPPING_RULES, rule.to_json());
        }
        for route in self.shipping_routes.iter().rev() {
            store.insert(SHIPPING_ROUTES, route.clone());
        }
        for shipment in &self.shipments {
            store.insert(SHIPMENTS, shipment.to_record());
        }
        for language in self.languages.iter().rev() {
            store.insert(LANGUAGES, language.to_json());
        }
        for webhook in self.webhooks.iter().rev() {
            store.insert(WEBHOOKS, webhook.to_json());
        }
        store
    }
}
