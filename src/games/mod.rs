//! Built-in games and the registry that names them for the command line.
//!
//! A game spec is a name with optional integer parameters: `kuhn`, `one-card-poker(n=5,a=2,b=1)`
//! or `one-card-poker:n=5,a=2,b=1`.

pub mod battleship;
pub mod big_leduc;
pub mod goofspiel;
pub mod kuhn;
pub mod leduc;
pub mod liars_dice;
pub mod openspiel;
pub mod rake;

use crate::error::{err, Error, Result, ResultExt};
use crate::game::Game;
use crate::report::{Picture, PictureSource};
use crate::scalar::Rational;
use crate::strategy::Profile;
use std::collections::BTreeMap;

/// An [`Error::Spec`] with a formatted message.
macro_rules! spec_error {
    ($($arg:tt)*) => {
        Error::Spec(format!($($arg)*))
    };
}

/// Built-in games refuse to build trees with more nodes than this (checked before allocating).
/// Measured peak for `liars-dice(sides=9)` (42 467 257 nodes) built and solved by `bluff
/// solve` with either CFR kernel: about 100 bytes per node (4.2-4.5 GB), so 5e7 nodes stay
/// near 5 GB (it was 2e7 while the builder took several hundred bytes per node).
pub const MAX_BUILT_IN_NODES: u64 = 50_000_000;

/// An integer parameter of a built-in game.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Parameter name as written in a spec.
    pub name: &'static str,
    /// Value used when the spec leaves it out.
    pub default: i64,
    /// Smallest allowed value.
    pub min: i64,
    /// Largest allowed value.
    pub max: i64,
    /// One-line meaning.
    pub doc: &'static str,
    /// Names for the values `0, 1, ..` (empty for a plain integer): a spec may give the name
    /// instead of the number, e.g. `order=descending`.
    pub choices: &'static [&'static str],
    /// Whether the value is an exact decimal or fraction (`0.05`, `1/20`) rather than an
    /// integer; `default`, `min` and `max` still bound it.
    pub decimal: bool,
}

/// Parameter values given to a game's constructor (defaults filled in, ranges checked).
#[derive(Clone, Debug, Default)]
pub struct Params(BTreeMap<String, i64>, BTreeMap<String, Rational>);

impl Params {
    /// The value of a declared integer parameter.
    pub fn get(&self, name: &str) -> i64 {
        *self
            .0
            .get(name)
            .unwrap_or_else(|| panic!("parameter {name} is not declared by this game"))
    }

    /// The value of a declared decimal parameter, exact.
    pub fn fraction(&self, name: &str) -> Rational {
        self.1
            .get(name)
            .unwrap_or_else(|| panic!("decimal parameter {name} is not declared by this game"))
            .clone()
    }

    /// The rake these parameters give (`rake` and `rake_cap`; a cap at its default is none).
    pub fn rake(&self) -> rake::Rake {
        let cap = self.fraction("rake_cap");
        rake::Rake {
            rate: self.fraction("rake"),
            cap: (cap != Rational::from_integer(RAKE_CAP_NONE.into())).then_some(cap),
        }
    }
}

/// `rake_cap`'s default, which means no cap (no pot of a built-in game comes near it).
const RAKE_CAP_NONE: i64 = 1_000_000;

/// One-card poker's parameters.
const ONE_CARD_POKER_PARAMS: [ParamSpec; 5] = [
    ParamSpec {
        name: "n",
        default: 3,
        min: 2,
        max: 50,
        doc: "number of cards",
        decimal: false,
        choices: &[],
    },
    ParamSpec {
        name: "a",
        default: 2,
        min: 1,
        max: 1000,
        doc: "pot the dealer puts in",
        decimal: false,
        choices: &[],
    },
    ParamSpec {
        name: "b",
        default: 1,
        min: 1,
        max: 1000,
        doc: "bet size",
        decimal: false,
        choices: &[],
    },
    RAKE_PARAMS[0],
    RAKE_PARAMS[1],
];

/// Kuhn poker with `rake` (the plain game when it takes nothing).
fn raked_kuhn(rake: &rake::Rake) -> Result<Game> {
    if rake.is_zero() {
        return kuhn::kuhn_poker();
    }
    let spec = format!("kuhn({})", rake.spec_params());
    crate::game::compile(&rake::Raked::new(kuhn::Kuhn, rake.clone(), spec), u64::MAX)
}

/// Leduc poker with `rake` (the plain game when it takes nothing).
fn raked_leduc(rake: &rake::Rake) -> Result<Game> {
    if rake.is_zero() {
        return leduc::leduc_poker();
    }
    let spec = format!("leduc({})", rake.spec_params());
    crate::game::compile(
        &rake::Raked::new(leduc::Leduc, rake.clone(), spec),
        u64::MAX,
    )
}

/// The rake parameters of the poker games.
const RAKE_PARAMS: [ParamSpec; 2] = [
    ParamSpec {
        name: "rake",
        default: 0,
        min: 0,
        max: 1,
        doc: "share of the final pot the house takes from the winner (a tie splits it), exact: 0.05 or 1/20",
        choices: &[],
        decimal: true,
    },
    ParamSpec {
        name: "rake_cap",
        default: RAKE_CAP_NONE,
        min: 0,
        max: RAKE_CAP_NONE,
        doc: "most the house takes from one pot (default: no cap)",
        choices: &[],
        decimal: true,
    },
];

/// A game's own pictures in its report (see [`crate::report::PictureSource`]), from its
/// checked parameters.
pub type PicturesFn =
    fn(&Game, &Params, &Profile<f64>, Option<&Rational>, &mut Vec<String>) -> Result<Vec<Picture>>;

/// A built-in game: its name, parameters and constructor.
#[derive(Clone, Copy)]
pub struct GameInfo {
    /// Name used in specs.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Declared parameters.
    pub params: &'static [ParamSpec],
    /// Builds the game from checked parameters.
    pub build: fn(&Params) -> Result<Game>,
    /// Its own pictures in a report, if it has any.
    pub pictures: Option<PicturesFn>,
}

/// A game's pictures with the parameters they are drawn for.
struct Pictures(PicturesFn, Params);

impl PictureSource for Pictures {
    fn pictures(
        &self,
        game: &Game,
        profile: &Profile<f64>,
        known_value: Option<&Rational>,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Picture>> {
        (self.0)(game, &self.1, profile, known_value, notes)
    }
}

/// The source of the pictures of the built-in game a spec names, if it has any (a file spec
/// has none).
pub fn picture_source(spec: &str) -> Option<Box<dyn PictureSource>> {
    if is_file_spec(spec) {
        return None;
    }
    let (info, params) = parse_spec(spec).ok()?;
    Some(Box::new(Pictures(info.pictures?, params)))
}

/// All built-in games.
pub fn registry() -> Vec<GameInfo> {
    vec![
        GameInfo {
        name: "kuhn",
        description:
            "Kuhn poker (OpenSpiel rules): 3 cards, ante 1, one bet of 1; value -1/18 for P1",
        params: &RAKE_PARAMS,
        build: |p| raked_kuhn(&p.rake()),
        pictures: None,
    },
    GameInfo {
        name: "leduc",
        description: "Leduc poker (OpenSpiel rules): 6 cards, raises 2 then 4, public card; 936 information sets",
        params: &RAKE_PARAMS,
        build: |p| raked_leduc(&p.rake()),
        pictures: None,
    },
    GameInfo {
        name: "liars-dice",
        description: "Liar's dice (OpenSpiel liars_dice): bids quantity-face, highest face wild, \
                      Liar call; 1 die x 6 sides: 294883 nodes, 24576 information sets",
        params: &[
            ParamSpec { name: "dice", default: 1, min: 1, max: 4, doc: "dice per player", decimal: false, choices: &[] },
            ParamSpec { name: "sides", default: 6, min: 2, max: 12, doc: "faces of each die", decimal: false, choices: &[] },
        ],
        build: |p| liars_dice::liars_dice(p.get("dice") as u32, p.get("sides") as u32, MAX_BUILT_IN_NODES),
        pictures: None,
    },
    GameInfo {
        name: "goofspiel",
        description: "Goofspiel, imperfect information (OpenSpiel goofspiel imp_info, turn-based): \
                      bid cards for point cards, see only who won each round",
        params: &[
            ParamSpec { name: "cards", default: 4, min: 2, max: 31, doc: "cards per hand and point cards", decimal: false, choices: &[] },
            ParamSpec {
                name: "order",
                default: 0,
                min: 0,
                max: 2,
                doc: "point-card order (OpenSpiel points_order; the papers use descending)",
                decimal: false,
                choices: goofspiel::ORDER_NAMES,
            },
            ParamSpec {
                name: "returns",
                default: 0,
                min: 0,
                max: 1,
                doc: "payoff (OpenSpiel returns_type)",
                decimal: false,
                choices: goofspiel::RETURNS_NAMES,
            },
        ],
        build: |p| {
            let order = goofspiel::PointsOrder::from_code(p.get("order"))
                .ok_or_else(|| spec_error!("bad order code"))?;
            let returns = goofspiel::Returns::from_code(p.get("returns"))
                .ok_or_else(|| spec_error!("bad returns code"))?;
            goofspiel::goofspiel(p.get("cards") as u32, order, returns, MAX_BUILT_IN_NODES)
        },
        pictures: None,
    },
    GameInfo {
        name: "one-card-poker",
        description: "one-card poker (contest rules): cards 1..n, dealer pot a, bet b, random first player; value a/2 for each",
        params: &ONE_CARD_POKER_PARAMS,
        build: |p| Ok(crate::problems::one_card_poker::game::one_card_poker_raked(p.get("n") as usize, p.get("a"), p.get("b"), &p.rake())?),
        pictures: Some(|game, p, profile, _, notes| {
            Ok(crate::problems::one_card_poker::pictures::pictures(game, p.get("n") as usize, profile, notes))
        }),
    },
    GameInfo {
            name: "baby-poker",
            description: "Baby poker with dice: A calls (showdown for 1) or raises, B folds or \
                          calls (showdown for the raise); value 5/54 for A at the defaults",
            params: &[
                ParamSpec {
                    name: "sides",
                    default: 6,
                    min: 2,
                    max: 20,
                    doc: "faces of each player's die", decimal: false, choices: &[] },
                ParamSpec {
                    name: "raise",
                    default: 2,
                    min: 1,
                    max: 1000,
                    doc: "showdown stake after a raise is called", decimal: false, choices: &[] },
            ],
            build: |p| {
                Ok(crate::problems::baby_poker::baby_poker(
                    p.get("sides") as usize,
                    p.get("raise"),
                )?)
            },
            pictures: Some(|game, p, profile, known_value, notes| {
                crate::problems::baby_poker::pictures::pictures(
                    game,
                    p.get("sides") as usize,
                    p.get("raise"),
                    profile,
                    known_value,
                    notes,
                )
            }),
},
        GameInfo {
            name: "big-leduc",
            description: "Big Leduc (PokerRL's BigLeduc, as in the DDCFR paper): Leduc with 12 ranks \
                          x 2 suits and 6 raises per round; 6178561 nodes",
            params: &[
                ParamSpec { name: "ranks", default: 12, min: 2, max: 13, doc: "ranks of the 2-suit deck", decimal: false, choices: &[] },
                ParamSpec { name: "raises", default: 6, min: 1, max: 6, doc: "raises allowed per round", decimal: false, choices: &[] },
            ],
            build: |p| Ok(big_leduc::leduc_family(p.get("ranks") as usize, p.get("raises") as u32)?),
            pictures: None,
        },
        GameInfo {
            name: "battleship",
            description: "Battleship (OpenSpiel battleship as in the DDCFR paper): one ship of \
                          length 2 and value 2, 3 shots each, no repeats; 2x3: 732607 nodes",
            params: &[
                ParamSpec { name: "width", default: 2, min: 2, max: 3, doc: "board width", decimal: false, choices: &[] },
                ParamSpec { name: "height", default: 2, min: 2, max: 3, doc: "board height", decimal: false, choices: &[] },
            ],
            build: |p| Ok(battleship::battleship(p.get("width") as usize, p.get("height") as usize)?),
            pictures: None,
        },
        GameInfo {
            name: "shrek-donkey",
            description:
                "card guessing (Codeforces 98E): m + n + 1 labelled cards, guess or name; \
                 payoff 1 to the winner (m + n <= 5)",
            params: &[
                ParamSpec {
                    name: "m",
                    default: 1,
                    min: 0,
                    max: 5,
                    doc: "Shrek's cards (he moves first)", decimal: false, choices: &[] },
                ParamSpec {
                    name: "n",
                    default: 1,
                    min: 0,
                    max: 5,
                    doc: "Donkey's cards", decimal: false, choices: &[] },
            ],
            build: shrek_donkey_from_params,
            pictures: Some(|_, p, _, _, _| {
                Ok(crate::problems::card_guessing::pictures::pictures(
                    p.get("m") as usize,
                    p.get("n") as usize,
                ))
            }),
        },
    ]
}

/// Splits a spec into a built-in game and its checked parameters.
pub fn parse_spec(spec: &str) -> Result<(GameInfo, Params)> {
    let spec = spec.trim();
    let (name, args) = if let Some(open) = spec.find('(') {
        let inner = spec[open + 1..].strip_suffix(')').ok_or_else(|| {
            spec_error!(
                "game spec {}: missing closing ')'",
                crate::format::text::quoted(spec)
            )
        })?;
        (&spec[..open], inner)
    } else if let Some((n, a)) = spec.split_once(':') {
        (n, a)
    } else {
        (spec, "")
    };
    let all = registry();
    let info = *all.iter().find(|g| g.name == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|g| g.name).collect();
        spec_error!(
            "unknown game {}; built-in games are: {} (or give a .efg/.nfg file)",
            crate::format::text::quoted(name),
            names.join(", ")
        )
    })?;
    let mut params = Params(
        info.params
            .iter()
            .filter(|p| !p.decimal)
            .map(|p| (p.name.to_string(), p.default))
            .collect(),
        info.params
            .iter()
            .filter(|p| p.decimal)
            .map(|p| (p.name.to_string(), Rational::from_integer(p.default.into())))
            .collect(),
    );
    let mut seen = std::collections::HashSet::new();
    for part in args.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = part.split_once('=').ok_or_else(|| {
            spec_error!(
                "game {name}: parameter {} should look like name=value",
                crate::format::text::quoted(part)
            )
        })?;
        let key = key.trim();
        let decl = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
            let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            spec_error!(
                "game {name} has no parameter {}; its parameters are: {}",
                crate::format::text::quoted(key),
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            )
        })?;
        if !seen.insert(key) {
            return Err(spec_error!("game {name}: parameter {key} is given twice"));
        }
        let value = value.trim();
        if decl.decimal {
            let v = crate::scalar::parse_rational(value).ok_or_else(|| {
                spec_error!(
                    "game {name}: parameter {key} = {} is not a number (give 0.05 or 1/20)",
                    crate::format::text::quoted(value)
                )
            })?;
            if v < Rational::from_integer(decl.min.into())
                || v > Rational::from_integer(decl.max.into())
            {
                return Err(spec_error!(
                    "game {name}: parameter {key} = {} is outside {}..={}",
                    crate::format::text::shortened(value),
                    decl.min,
                    decl.max
                ));
            }
            params.1.insert(key.to_string(), v);
            continue;
        }
        let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
        let v: i64 = match (decl.choices.iter().position(|c| *c == value), value.parse()) {
            (Some(index), _) => index as i64,
            (None, Ok(v)) => v,
            // An integer too large for i64 is out of range, not "not an integer".
            (None, Err(_)) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(spec_error!(
                    "game {name}: parameter {key} = {} is outside {}..={}",
                    crate::format::text::shortened(value),
                    decl.min,
                    decl.max
                ))
            }
            (None, Err(_)) if decl.choices.is_empty() => {
                return Err(spec_error!(
                    "game {name}: parameter {key} = {} is not an integer",
                    crate::format::text::quoted(value)
                ))
            }
            (None, Err(_)) => {
                return Err(spec_error!(
                    "game {name}: parameter {key} = {} is not one of {}",
                    crate::format::text::quoted(value),
                    decl.choices.join(", ")
                ))
            }
        };
        if v < decl.min || v > decl.max {
            return Err(spec_error!(
                "game {name}: parameter {key} = {v} is outside {}..={}",
                decl.min,
                decl.max
            ));
        }
        params.0.insert(key.to_string(), v);
    }
    Ok((info, params))
}

/// A game loaded from a spec, with what the reader had to say about it.
#[derive(Debug)]
pub struct Loaded {
    /// The game.
    pub game: Game,
    /// Warnings about the file (probabilities renormalised, labels Gambit 16 would refuse,
    /// text after the last node), each with its position; empty for built-in games.
    pub warnings: Vec<String>,
}

/// `true` when a spec names a game file (`.efg` or `.nfg`, any case) rather than a built-in
/// game: the one rule every front end uses.
pub fn is_file_spec(spec: &str) -> bool {
    let lower = spec.trim_end().to_ascii_lowercase();
    lower.ends_with(".efg") || lower.ends_with(".nfg")
}

/// Builds the built-in game a spec names (`kuhn`, `liars-dice(sides=4)`).
pub fn builtin(spec: &str) -> Result<Game> {
    let (info, params) = parse_spec(spec)?;
    (info.build)(&params)
        .context_with(|| format!("building game {}", crate::format::text::quoted(spec)))
}

/// Loads the game a spec names: a built-in game, or a path ending in `.efg` (Gambit extensive
/// form) or `.nfg` (Gambit strategic form, played as player 1 choosing a row and player 2 a
/// column without seeing it). `progress(bytes read, file size)` is called as a `.efg` file
/// streams in.
pub fn load_with_progress(spec: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Loaded> {
    let path = std::path::Path::new(spec.trim_end());
    if !is_file_spec(spec) {
        return Ok(Loaded {
            game: builtin(spec)?,
            warnings: Vec::new(),
        });
    }
    if spec.trim_end().to_ascii_lowercase().ends_with(".nfg") {
        return Ok(Loaded {
            game: crate::format::nfg::load_nfg_file(path)?,
            warnings: Vec::new(),
        });
    }
    let (game, warnings) = crate::format::efg::load_efg_file_with_progress(path, progress)?;
    Ok(Loaded {
        game,
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    })
}

/// [`load_with_progress`] without progress.
pub fn load(spec: &str) -> Result<Loaded> {
    load_with_progress(spec, &mut |_, _| {})
}

/// A built-in game stated by its rules (kuhn, leduc, liars-dice and goofspiel), which the
/// sampling solvers and the streaming best response play without building the arena.
#[derive(Clone, Debug)]
pub enum BuiltinRules {
    /// Kuhn poker.
    Kuhn(kuhn::Kuhn),
    /// Leduc poker.
    Leduc(leduc::Leduc),
    /// Liar's dice.
    LiarsDice(liars_dice::LiarsDice),
    /// Goofspiel.
    Goofspiel(goofspiel::Goofspiel),
    /// Raked Kuhn poker (general-sum).
    RakedKuhn(rake::Raked<kuhn::Kuhn>),
    /// Raked Leduc poker (general-sum).
    RakedLeduc(rake::Raked<leduc::Leduc>),
}

/// Work to do on a game's rules, whatever their type (one monomorphised call per game).
pub trait WithRules {
    /// What the work returns.
    type Output;
    /// Does the work on `rules`.
    fn run<G: crate::game::Rules>(self, rules: &G) -> Self::Output;
}

impl BuiltinRules {
    /// Runs `work` on these rules.
    pub fn with<W: WithRules>(&self, work: W) -> W::Output {
        match self {
            BuiltinRules::Kuhn(r) => work.run(r),
            BuiltinRules::Leduc(r) => work.run(r),
            BuiltinRules::LiarsDice(r) => work.run(r),
            BuiltinRules::Goofspiel(r) => work.run(r),
            BuiltinRules::RakedKuhn(r) => work.run(r),
            BuiltinRules::RakedLeduc(r) => work.run(r),
        }
    }

    /// The number of histories.
    pub fn num_nodes(&self) -> Option<u64> {
        use crate::game::Rules;
        match self {
            BuiltinRules::Kuhn(r) => r.num_nodes(),
            BuiltinRules::Leduc(r) => r.num_nodes(),
            BuiltinRules::LiarsDice(r) => r.num_nodes(),
            BuiltinRules::Goofspiel(r) => r.num_nodes(),
            BuiltinRules::RakedKuhn(r) => r.num_nodes(),
            BuiltinRules::RakedLeduc(r) => r.num_nodes(),
        }
    }
}

/// The rules of the built-in game a spec names, or `None` for a file or a game stated only as
/// an arena.
pub fn rules(spec: &str) -> Result<Option<BuiltinRules>> {
    if is_file_spec(spec) {
        return Ok(None);
    }
    let (info, p) = parse_spec(spec)?;
    Ok(Some(match info.name {
        "kuhn" if !p.rake().is_zero() => BuiltinRules::RakedKuhn(rake::Raked::new(
            kuhn::Kuhn,
            p.rake(),
            format!("kuhn({})", p.rake().spec_params()),
        )),
        "leduc" if !p.rake().is_zero() => BuiltinRules::RakedLeduc(rake::Raked::new(
            leduc::Leduc,
            p.rake(),
            format!("leduc({})", p.rake().spec_params()),
        )),
        "kuhn" => BuiltinRules::Kuhn(kuhn::Kuhn),
        "leduc" => BuiltinRules::Leduc(leduc::Leduc),
        "liars-dice" => BuiltinRules::LiarsDice(liars_dice::LiarsDice::new(
            p.get("dice") as u32,
            p.get("sides") as u32,
        )?),
        "goofspiel" => BuiltinRules::Goofspiel(goofspiel::Goofspiel::new(
            p.get("cards") as u32,
            goofspiel::PointsOrder::from_code(p.get("order"))
                .ok_or_else(|| err!(Spec, "bad order code"))?,
            goofspiel::Returns::from_code(p.get("returns"))
                .ok_or_else(|| err!(Spec, "bad returns code"))?,
        )?),
        _ => return Ok(None),
    }))
}
/// The registry's constructor: parameters `m` and `n`, with `m + n <= crate::problems::card_guessing::explicit::MAX_EXPLICIT_CARDS`.
fn shrek_donkey_from_params(params: &Params) -> Result<Game> {
    use crate::error::fail;
    use crate::problems::card_guessing::explicit::MAX_EXPLICIT_CARDS;
    let (m, n) = (params.get("m") as usize, params.get("n") as usize);
    if m + n > MAX_EXPLICIT_CARDS {
        fail!(
            Invalid,
            "game shrek-donkey: m + n = {} exceeds {MAX_EXPLICIT_CARDS} (the tree grows like \
             (m+n+1)!; `bluff shrek-donkey` solves any size by dynamic programming)",
            m + n
        );
    }
    Ok(crate::problems::card_guessing::explicit::shrek_donkey(
        m, n,
    )?)
}
