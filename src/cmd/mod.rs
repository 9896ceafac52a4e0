//! One module per subcommand. Each turns its options into library calls and returns an
//! [`crate::Outcome`]; nothing here prints or exits.

pub mod compile;
pub mod fmt;
pub mod lower;
pub mod mlir;
pub mod ops;
pub mod run;
pub mod verify;
