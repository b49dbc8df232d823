//! The scanner of compaction-core's calibrated estimator, in a crate of its
//! own so that the release profile can build it, and only it, for speed
//! (`opt-level = 3`) while the rest of the library is built for size: the
//! scan is where the estimator spends its time, the rest is where the bytes
//! are (`scripts/size`, `scripts/bench`).
//!
//! `features.rs` lists the counts once; `classes.rs` holds the character
//! classes; `scan.rs` is the scanner, `vietnamese.rs` its count of Vietnamese lines' Latin letters; `utf16.rs` counts a text's UTF-16
//! length, the spec's rule's one pass. compaction-core re-exports the
//! scanner and its counts under `compaction_core::calibrated` (the weights
//! and the weighing stay there) and `utf16_len` under
//! `compaction_core::estimate`.

// Only `core`: the web build of compaction-core links no `std`.
#![cfg_attr(target_arch = "wasm32", no_std)]

mod classes;
pub mod features;
mod scan;
mod utf16;
mod vietnamese;

pub use features::{FEATURE_COUNT, FEATURE_NAMES, FamilyWeights, Feature, TextFeatures};
pub use scan::scan;
pub use utf16::utf16_len;
