//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)]

pub mod cli;
pub mod leduc;
