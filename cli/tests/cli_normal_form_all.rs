//! `bluff normal-form GAME --all`: every extreme equilibrium of a two-player game, exactly,
//! with the maximal cliques of interchangeable equilibria.

mod common;

use common::cli::{assert_refused, bluff, json_of};
use serde_json::Value;

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A game whose equilibria are found by hand: A = B = [[1, 1], [1, 0]] (rows T, B; columns
/// L, R). Against L player 1 is indifferent, against R row T is strictly better, and the same
/// for player 2 by symmetry; so the equilibria are T with any column and L with any row. Its
/// extreme equilibria are (T, L), (T, R) and (B, L); (T, R) and (B, L) are not
/// interchangeable ((B, R) pays 0 and is no equilibrium), so the maximal cliques are
/// {(T, L), (T, R)} and {(T, L), (B, L)}.
#[test]
fn two_overlapping_cliques_found_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let game = common::write_in(
        dir.path(),
        "cliques.nfg",
        "NFG 1 R \"two cliques\" { \"P1\" \"P2\" }\n{ { \"T\" \"B\" } { \"L\" \"R\" } }\n\"\"\n\
         1 1 1 1 1 1 0 0\n",
    );
    let v = json_of(bluff().arg("normal-form").arg(&game).arg("--all"));
    let eqs = v["equilibria"].as_array().unwrap();
    let pure = |e: &Value| -> (usize, usize) {
        let one = |s: Vec<String>| s.iter().position(|x| x == "1").unwrap();
        (one(strings(&e["p1"])), one(strings(&e["p2"])))
    };
    let mut found: Vec<(usize, usize)> = eqs.iter().map(pure).collect();
    found.sort();
    assert_eq!(found, [(0, 0), (0, 1), (1, 0)]);
    for e in eqs {
        assert_eq!(e["value_p1"], "1");
        assert_eq!(e["value_p2"], "1");
    }
    let mut cliques: Vec<Vec<(usize, usize)>> = v["cliques"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut c: Vec<_> = c
                .as_array()
                .unwrap()
                .iter()
                .map(|i| pure(&eqs[i.as_u64().unwrap() as usize]))
                .collect();
            c.sort();
            c
        })
        .collect();
    cliques.sort();
    assert_eq!(cliques, [vec![(0, 0), (0, 1)], vec![(0, 0), (1, 0)]]);
    // Above the vertex limit the run is refused with the count reached.
    let out = bluff()
        .args([
            "normal-form",
            game.to_str().unwrap(),
            "--all",
            "--max-vertices",
            "2",
        ])
        .output()
        .unwrap();
    assert_refused(
        &out,
        "--max-vertices 2",
        "more than 2 vertices (the enumeration stopped at",
    );
}

/// Battle of the sexes as a bimatrix (3, 2 on Opera; 2, 3 on Football; 0 otherwise): two pure
/// equilibria and the mixed one where player 1 plays Opera 3/5 and player 2 Opera 2/5, each
/// getting 6/5; no two are interchangeable (a non-degenerate game: every clique is one).
#[test]
fn battle_of_the_sexes_has_three_isolated_equilibria() {
    let dir = tempfile::tempdir().unwrap();
    let game = common::write_in(
        dir.path(),
        "bos.nfg",
        "NFG 1 R \"bos\" { \"P1\" \"P2\" }\n{ { \"Opera\" \"Football\" } { \"Opera\" \"Football\" } }\n\"\"\n\
         3 2 0 0 0 0 2 3\n",
    );
    let v = json_of(bluff().arg("normal-form").arg(&game).arg("--all"));
    let mut found: Vec<(Vec<String>, Vec<String>, String, String)> = v["equilibria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                strings(&e["p1"]),
                strings(&e["p2"]),
                e["value_p1"].as_str().unwrap().to_string(),
                e["value_p2"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    let s = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
    let mut known = vec![
        (s("1", "0"), s("1", "0"), "3".to_string(), "2".to_string()),
        (s("0", "1"), s("0", "1"), "2".to_string(), "3".to_string()),
        (
            s("3/5", "2/5"),
            s("2/5", "3/5"),
            "6/5".to_string(),
            "6/5".to_string(),
        ),
    ];
    known.sort();
    assert_eq!(found, known);
    assert_eq!(v["cliques"].as_array().unwrap().len(), 3);
}

/// Kuhn poker's reduced normal form (27 x 64) is degenerate: the walk over lexico-feasible
/// bases reaches its vertices (75 of them in the first 1 600 bases), and past its budget of 16
/// bases per allowed vertex it is refused with the counts, no panic, nothing printed.
#[test]
fn a_degenerate_game_beyond_the_walks_budget_is_refused() {
    let out = bluff()
        .args(["normal-form", "kuhn", "--all", "--max-vertices", "100"])
        .output()
        .unwrap();
    assert_refused(
        &out,
        "kuhn --all",
        "the row player's best-response polytope is degenerate: 1600 lexico-feasible bases \
         walked for the 75 vertices found so far",
    );
    assert!(out.stdout.is_empty());
}
