//! `open_enum!`: string enums whose value set grows on the server side.
//!
//! The service adds statuses, types and event names over time. A closed enum would turn such an
//! addition into a decode failure, so every such enum here has an `Other(String)` arm that keeps the
//! unknown value verbatim. Each generated enum:
//!
//! - (de)serializes as the plain string (`"delivered"`), never as a tagged object;
//! - implements `Display`, `AsRef<str>`, `From<&str>`, `From<String>` and an infallible `FromStr`;
//! - has `as_str()` and `is_known()`, and a `KNOWN` list of the known variants;
//! - compares and hashes by its string form, so `Other("delivered".into())` equals `Delivered`.

/// Defines an open-ended string enum. See the module documentation.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident => $wire:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone)]
        #[non_exhaustive]
        $vis enum $name {
            $(
                $(#[$vmeta])*
                $variant,
            )+
            /// A value this version of the crate does not know, kept verbatim.
            Other(String),
        }

        impl $name {
            /// Every known variant, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The wire form of this value.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(other) => other.as_str(),
                }
            }

            /// Whether this value is one of the known variants (an `Other` holding a known wire
            /// string counts as known).
            pub fn is_known(&self) -> bool {
                match self {
                    $name::Other(other) => Self::lookup(other).is_some(),
                    _ => true,
                }
            }

            fn lookup(wire: &str) -> Option<Self> {
                match wire {
                    $($wire => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self {
                    $name::Other(other) => f.debug_tuple("Other").field(other).finish(),
                    known => f.write_str(match known {
                        $($name::$variant => stringify!($variant),)+
                        $name::Other(_) => "Other",
                    }),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::convert::AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl ::std::cmp::PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl ::std::cmp::Eq for $name {}

        impl ::std::hash::Hash for $name {
            fn hash<H: ::std::hash::Hasher>(&self, state: &mut H) {
                self.as_str().hash(state);
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;

            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                Ok(Self::from(s))
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(s: &str) -> Self {
                Self::lookup(s).unwrap_or_else(|| $name::Other(s.to_owned()))
            }
        }

        impl ::std::convert::From<String> for $name {
            fn from(s: String) -> Self {
                Self::lookup(&s).unwrap_or($name::Other(s))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                <String as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    };
}
