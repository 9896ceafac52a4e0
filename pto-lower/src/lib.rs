//! # pto-lower — the lowering pipeline (placeholder)
//!
//! Target profiles, legalization, scratch insertion, bufferization and memory planning land
//! here (see issue "Lowering pipeline"). The foundation only fixes the crate's place in the
//! workspace.

#![deny(missing_docs)]
