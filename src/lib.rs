//! compaction-core (work in progress)
