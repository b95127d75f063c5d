//! Webhook rules (`Webhook.rule`), built without hand-writing their syntax.

open_enum! {
    /// The order attributes a webhook rule on an order event may test, as the service documents
    /// them (the rule syntax is `Webhook.rule` in `openapi/store-admin.yaml`).
    pub enum OrderRuleAttribute {
        /// The order id.
        Id => "id",
        /// The reference number shown to the store owner.
        ReferenceId => "reference_id",
        /// The order total.
        Total => "total",
        /// The subtotal.
        SubTotal => "sub_total",
        /// The payment method (e.g. `mada`).
        PaymentMethod => "payment_method",
        /// The status id.
        StatusId => "status_id",
        /// The branch id.
        BranchId => "branch_id",
        /// The coupon code.
        CouponCode => "coupon_code",
        /// The shipping company id.
        ShipmentCompanyId => "shipment_company_id",
    }
}

impl From<OrderRuleAttribute> for String {
    fn from(value: OrderRuleAttribute) -> Self {
        value.as_str().to_owned()
    }
}

/// Why a rule cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// A string value contains a backtick, which would end the quoted string early.
    #[error("rule value for `{attribute}` contains a backtick, which the rule syntax cannot quote")]
    BacktickInValue {
        /// The attribute compared with that value.
        attribute: String,
    },
    /// The attribute name is empty or has characters other than letters, digits, `_` and `.`.
    #[error("invalid rule attribute name {0:?}: use letters, digits, `_` and `.`")]
    InvalidAttribute(String),
    /// A number is NaN or infinite.
    #[error("rule value for `{attribute}` is not a finite number")]
    NonFiniteNumber {
        /// The attribute compared with that value.
        attribute: String,
    },
    /// `AND` and `OR` are mixed: the service documents no precedence and no parentheses, so
    /// such a rule would be ambiguous.
    #[error(
        "a rule cannot mix AND and OR: the service documents no precedence or grouping; split it into separate webhooks"
    )]
    MixedConnectives,
}

/// A comparison operator of the rule syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `<`
    Lt,
}

impl Operator {
    /// The operator as written in a rule.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Ne => "!=",
            Operator::Gt => ">",
            Operator::Lt => "<",
        }
    }
}

/// A number in a rule: written bare (`50`, `12.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RuleNumber {
    /// An integer.
    Int(i64),
    /// An exact decimal.
    Decimal(rust_decimal::Decimal),
    /// A float (must be finite).
    Float(f64),
}

impl RuleNumber {
    fn render(self, attribute: &str) -> Result<String, RuleError> {
        match self {
            RuleNumber::Int(i) => Ok(i.to_string()),
            RuleNumber::Decimal(d) => Ok(d.to_string()),
            RuleNumber::Float(f) if f.is_finite() => Ok(f.to_string()),
            RuleNumber::Float(_) => Err(RuleError::NonFiniteNumber {
                attribute: attribute.to_owned(),
            }),
        }
    }
}

macro_rules! rule_number_from {
    ($($t:ty => $arm:ident),+) => {$(
        impl From<$t> for RuleNumber {
            fn from(v: $t) -> Self {
                RuleNumber::$arm(v.into())
            }
        }
        impl From<$t> for RuleValue {
            fn from(v: $t) -> Self {
                RuleValue::Number(RuleNumber::from(v))
            }
        }
    )+};
}

rule_number_from!(i64 => Int, i32 => Int, u32 => Int, i16 => Int, u16 => Int, u8 => Int,
    rust_decimal::Decimal => Decimal, f64 => Float, f32 => Float);

impl From<crate::values::Money> for RuleNumber {
    fn from(v: crate::values::Money) -> Self {
        RuleNumber::Decimal(v.0)
    }
}

impl From<crate::values::Money> for RuleValue {
    fn from(v: crate::values::Money) -> Self {
        RuleValue::Number(v.into())
    }
}

/// A value in a rule: a bare number or a string in backticks.
#[derive(Debug, Clone, PartialEq)]
pub enum RuleValue {
    /// Written bare.
    Number(RuleNumber),
    /// Written in backticks; must not contain one.
    Text(String),
}

impl From<&str> for RuleValue {
    fn from(v: &str) -> Self {
        RuleValue::Text(v.to_owned())
    }
}

impl From<String> for RuleValue {
    fn from(v: String) -> Self {
        RuleValue::Text(v)
    }
}

/// `AND` or `OR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Connective {
    /// `AND`
    And,
    /// `OR`
    Or,
}

#[derive(Debug, Clone, PartialEq)]
struct Condition {
    attribute: String,
    operator: Operator,
    value: RuleValue,
}

impl Condition {
    fn render(&self, out: &mut String) -> Result<(), RuleError> {
        let valid_name = !self.attribute.is_empty()
            && self
                .attribute
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !valid_name {
            return Err(RuleError::InvalidAttribute(self.attribute.clone()));
        }
        let value = match &self.value {
            RuleValue::Number(n) => n.render(&self.attribute)?,
            RuleValue::Text(t) if t.contains('`') => {
                return Err(RuleError::BacktickInValue {
                    attribute: self.attribute.clone(),
                });
            }
            RuleValue::Text(t) => format!("`{t}`"),
        };
        out.push_str(&self.attribute);
        out.push(' ');
        out.push_str(self.operator.as_str());
        out.push(' ');
        out.push_str(&value);
        Ok(())
    }
}

/// A webhook rule (version-2 webhooks): comparisons joined by `AND` or by `OR`.
///
/// ```
/// use store_admin::webhooks::{OrderRuleAttribute, Rule};
///
/// let rule = Rule::attr("status").eq("active").or(Rule::attr("applied_to").eq("first_order"));
/// assert_eq!(rule.render().unwrap(), "status = `active` OR applied_to = `first_order`");
///
/// let rule = Rule::attr(OrderRuleAttribute::PaymentMethod).eq("mada")
///     .or(Rule::attr(OrderRuleAttribute::Total).lt(50));
/// assert_eq!(rule.render().unwrap(), "payment_method = `mada` OR total < 50");
///
/// assert!(Rule::attr("coupon_code").eq("a`b").render().is_err());
/// ```
///
/// Building never fails; [`Rule::render`] checks everything and refuses, rather than emit, a rule
/// the service could read another way: a string containing a backtick, an attribute name that is
/// not a plain identifier, a non-finite number, or `AND` mixed with `OR` (no precedence or
/// grouping is documented).
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    first: Condition,
    rest: Vec<(Connective, Condition)>,
}

/// The left-hand side of a comparison, from [`Rule::attr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleAttribute(String);

impl RuleAttribute {
    fn compare(self, operator: Operator, value: RuleValue) -> Rule {
        Rule {
            first: Condition {
                attribute: self.0,
                operator,
                value,
            },
            rest: Vec::new(),
        }
    }

    /// `attribute = value` (a string is written in backticks, a number bare).
    pub fn eq(self, value: impl Into<RuleValue>) -> Rule {
        self.compare(Operator::Eq, value.into())
    }

    /// `attribute != value`.
    pub fn ne(self, value: impl Into<RuleValue>) -> Rule {
        self.compare(Operator::Ne, value.into())
    }

    /// `attribute > number`.
    pub fn gt(self, value: impl Into<RuleNumber>) -> Rule {
        self.compare(Operator::Gt, RuleValue::Number(value.into()))
    }

    /// `attribute < number`.
    pub fn lt(self, value: impl Into<RuleNumber>) -> Rule {
        self.compare(Operator::Lt, RuleValue::Number(value.into()))
    }
}

impl Rule {
    /// Starts a comparison on an attribute (a name, or an [`OrderRuleAttribute`]).
    pub fn attr(name: impl Into<String>) -> RuleAttribute {
        RuleAttribute(name.into())
    }

    fn join(mut self, connective: Connective, other: Rule) -> Rule {
        self.rest.push((connective, other.first));
        self.rest.extend(other.rest);
        self
    }

    /// `self AND other`.
    pub fn and(self, other: Rule) -> Rule {
        self.join(Connective::And, other)
    }

    /// `self OR other`.
    pub fn or(self, other: Rule) -> Rule {
        self.join(Connective::Or, other)
    }

    /// The rule in the service's syntax, or why it cannot be written unambiguously.
    pub fn render(&self) -> Result<String, RuleError> {
        let mut connectives = self.rest.iter().map(|(c, _)| *c);
        if let Some(first) = connectives.next()
            && connectives.any(|c| c != first)
        {
            return Err(RuleError::MixedConnectives);
        }
        let mut out = String::new();
        self.first.render(&mut out)?;
        for (connective, condition) in &self.rest {
            out.push_str(match connective {
                Connective::And => " AND ",
                Connective::Or => " OR ",
            });
            condition.render(&mut out)?;
        }
        Ok(out)
    }
}

impl TryFrom<&Rule> for String {
    type Error = RuleError;

    fn try_from(rule: &Rule) -> Result<Self, Self::Error> {
        rule.render()
    }
}
