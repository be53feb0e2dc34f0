//! The exception classes of the `bluff` module.

use pyo3::create_exception;
use pyo3::exceptions::{PyUserWarning, PyValueError};

create_exception!(
    bluff,
    GameError,
    PyValueError,
    "An invalid game: bad probabilities or payoffs, inconsistent actions, imperfect recall, not constant-sum. The message names the node or information set."
);
create_exception!(
    bluff,
    UnsupportedGameError,
    GameError,
    "A valid game outside what bluff solves (more than two players, general-sum, sampled chance, too many nodes)."
);
create_exception!(
    bluff,
    FormatError,
    PyValueError,
    "A malformed .efg or .nfg file; the message names the line and column."
);
create_exception!(
    bluff,
    PolicyError,
    PyValueError,
    "A policy that does not fit its game: missing information sets or actions, negative probabilities, sums other than 1."
);
create_exception!(
    bluff,
    BluffWarning,
    PyUserWarning,
    "A file that loads but deserves attention (probabilities normalised, labels Gambit 16 would refuse)."
);
