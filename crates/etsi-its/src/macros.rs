//! Newtype declarations shared by the ASN.1 modules ([`crate::cdd`],
//! [`crate::its_container_v1`], [`crate::cpm`]).

/// `Name ::= INTEGER (lb..ub)` as a delegate newtype over a primitive.
macro_rules! constrained_int {
    ($(#[$doc:meta])* $name:ident($inner:ty), $range:literal) => {
        $(#[$doc])*
        #[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[rasn(delegate, value($range))]
        pub struct $name(pub $inner);
    };
}

/// `Name ::= BIT STRING (SIZE(n))` as a delegate newtype.
macro_rules! fixed_bit_string {
    ($(#[$doc:meta])* $name:ident, $size:literal) => {
        $(#[$doc])*
        #[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
        #[rasn(delegate, size($size))]
        pub struct $name(pub BitString);
    };
}
