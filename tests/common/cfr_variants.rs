//! Every CFR variant by its CLI name, for the tests that run them all.

use bluff::cfr::RegretParams;

/// The ten variants in a fixed order (tests index pinned constants by it); `horizon` is the
/// run length the HS schedules are built for.
pub fn variants(horizon: u64) -> Vec<(&'static str, RegretParams)> {
    vec![
        ("cfr", RegretParams::vanilla()),
        ("cfr-alt", RegretParams::vanilla_alternating()),
        ("cfr+", RegretParams::cfr_plus()),
        ("lcfr", RegretParams::linear()),
        ("dcfr", RegretParams::discounted_default()),
        ("pcfr+", RegretParams::predictive_plus()),
        ("dcfr+", RegretParams::dcfr_plus()),
        ("pdcfr+", RegretParams::pdcfr_plus()),
        ("hs-dcfr", RegretParams::hs_dcfr(30.0, horizon)),
        ("hs-pcfr+", RegretParams::hs_pcfr_plus(30.0, horizon)),
    ]
}
