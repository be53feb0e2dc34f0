//! The three worked problems of `docs/problems.md`, each in one place: its game, its own solver, its
//! file format and its pictures. The engine (`game`, `solve`, `eval`, `format`, `report`)
//! never names them; the game catalog ([`crate::games`]) lists their games, and the report
//! draws their pictures through the catalog's hook.
//!
//! - [`one_card_poker`]: the contest task: the game, the contest's
//!   `N A B` and 4N-line formats, the vector-form CFR and the exact solver;
//! - [`card_guessing`]: Codeforces 98E, "Help Shrek and Donkey": the dynamic
//!   programme and the explicit extensive form that checks it;
//! - [`baby_poker`]: baby poker with dice: the game, its closed-form matrix and
//!   the exact analysis of both players' optimal sets.

pub mod baby_poker;
pub mod card_guessing;
pub mod one_card_poker;
