//! # pto-sim — the simulator (placeholder)
//!
//! A byte-exact model of the on-chip buffers and GM lands here (see issue "Simulator").

#![deny(missing_docs)]
