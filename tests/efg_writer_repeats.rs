//! The `.efg` writer repeats every information set's label and actions (and every outcome's
//! payoffs) at each node: OpenSpiel's `efg_game` parser requires them, Gambit accepts them.
//! (The Python tests load every exported built-in game in pyspiel itself.)

use bluff::format::efg::{efg_to_game, game_to_efg, read_efg, write_efg};

#[test]
fn every_decision_and_chance_node_carries_its_set_description() {
    for spec in ["kuhn", "leduc", "shrek-donkey(m=1,n=1)"] {
        let game = bluff::games::load(spec).unwrap().game;
        let text = write_efg(&game_to_efg(&game)).unwrap();
        let mut decisions = 0;
        for line in text.lines() {
            if line.starts_with("p ") || line.starts_with("c ") {
                decisions += 1;
                assert!(line.contains('{') && line.ends_with(" 0"), "{spec}: {line}");
            }
        }
        assert_eq!(
            decisions,
            game.nodes.len() - game.num_terminal_nodes(),
            "{spec}"
        );
        // Gambit's grammar allows the repeats when they match: the file reads back as the game.
        let back = efg_to_game(&read_efg(&text).unwrap().game).unwrap();
        assert_eq!(back.nodes.len(), game.nodes.len());
        assert_eq!(back.num_actions, game.num_actions);
    }
}
