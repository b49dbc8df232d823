//! The scanner of compaction-core's calibrated estimator, in a crate of its
//! own so that the release profile can build it, and only it, for speed
//! (`opt-level = 3`) while the rest of the library is built for size: the
//! scan is where the estimator spends its time, the rest is where the bytes
//! are (`scripts/size`, `scripts/bench`).
//!
//! `features.rs` lists the counts once; `classes.rs` holds the character
//! classes; `scan.rs` is the scanner. compaction-core re-exports all three
//! under `compaction_core::calibrated`; the weights and the weighing stay
//! there.

mod classes;
pub mod features;
mod scan;

pub use features::{FEATURE_COUNT, FEATURE_NAMES, FamilyWeights, Feature, TextFeatures};
pub use scan::scan;
