//! Helpers shared by the library's integration tests (each test file uses some of them).
#![allow(dead_code)]

pub mod cfr_variants;
pub mod leduc;
pub mod rng;
