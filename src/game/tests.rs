use super::*;
use crate::scalar::{int, rat};

fn tiny() -> GameBuilder {
    let mut b = GameBuilder::new("tiny", "A", "B");
    let root = b.root();
    let deal = b
        .chance(root, vec![("H", rat(1, 3)), ("L", rat(2, 3))])
        .unwrap();
    let h = b.decision(deal[0], 0, "high", &["bet", "check"]).unwrap();
    let l = b.decision(deal[1], 0, "low", &["bet", "check"]).unwrap();
    for (node, win) in [(h[0], 2), (l[0], -2)] {
        let r = b
            .decision(node, 1, "facing bet", &["call", "fold"])
            .unwrap();
        b.terminal_zero_sum(r[0], int(win)).unwrap();
        b.terminal_zero_sum(r[1], int(1)).unwrap();
    }
    b.terminal_zero_sum(h[1], int(1)).unwrap();
    b.terminal_zero_sum(l[1], int(-1)).unwrap();
    b
}

#[test]
fn layout_is_breadth_first_with_contiguous_children() {
    let g = tiny().build().unwrap();
    assert_eq!(g.nodes.len(), 11);
    for (i, n) in g.nodes.iter().enumerate() {
        for c in n.children() {
            assert!(c > i, "children come after their parent");
            assert_eq!(g.nodes[c].parent as usize, i);
            assert_eq!(g.nodes[c].action as usize, c - n.first_child as usize);
        }
    }
    assert_eq!(g.infosets[0].len(), 2);
    assert_eq!(g.infosets[1].len(), 1);
    assert_eq!(g.infosets[1][0].nodes.len(), 2);
    assert_eq!(g.chance_prob[1], rat(1, 3));
    assert_eq!(
        g.path_labels(g.infosets[1][0].nodes[1] as usize),
        vec!["L", "bet"]
    );
}

#[test]
fn parent_sequences_follow_own_actions() {
    let g = crate::games::kuhn::kuhn_poker().unwrap();
    let jpb = &g.infosets[0][g.find_infoset(0, "Jpb").unwrap()];
    let j = &g.infosets[0][g.find_infoset(0, "J").unwrap()];
    assert_eq!(jpb.parent_action, Some(j.action_offset)); // "Pass" is J's first action
    assert_eq!(j.parent_sequence(), 0);
    assert_eq!(g.num_sequences(0), 13);
}

#[test]
fn imperfect_recall_is_named() {
    // B forgets its own first action: both second-level nodes share one set.
    let mut b = GameBuilder::new("forgetful", "A", "B");
    let root = b.root();
    let first = b.decision(root, 1, "first", &["x", "y"]).unwrap();
    for &n in &first {
        let second = b.decision(n, 1, "second", &["u", "v"]).unwrap();
        b.terminal_zero_sum(second[0], int(1)).unwrap();
        b.terminal_zero_sum(second[1], int(0)).unwrap();
    }
    let err = b.build().unwrap_err();
    match &err {
        GameError::ImperfectRecall { label, player, .. } => {
            assert_eq!(label, "second");
            assert_eq!(*player, 2);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("\"second\""));
}

#[test]
fn absent_mindedness_is_rejected() {
    let mut b = GameBuilder::new("absent", "A", "B");
    let root = b.root();
    let c = b.decision(root, 0, "drive", &["exit", "go"]).unwrap();
    b.terminal_zero_sum(c[0], int(0)).unwrap();
    let d = b.decision(c[1], 0, "drive", &["exit", "go"]).unwrap();
    b.terminal_zero_sum(d[0], int(4)).unwrap();
    b.terminal_zero_sum(d[1], int(1)).unwrap();
    assert!(matches!(b.build(), Err(GameError::ImperfectRecall { .. })));
}

#[test]
fn inconsistent_actions_are_rejected() {
    let mut b = GameBuilder::new("bad", "A", "B");
    let root = b.root();
    let deal = b.chance_uniform(root, vec!["a", "b"]).unwrap();
    b.decision(deal[0], 0, "s", &["x", "y"]).unwrap();
    let err = b.decision(deal[1], 0, "s", &["x", "z"]).unwrap_err();
    assert!(matches!(err, GameError::InconsistentActions { .. }));
}

#[test]
fn chance_must_sum_to_one_and_be_nonnegative() {
    let mut b = GameBuilder::new("bad", "A", "B");
    let root = b.root();
    let err = b
        .chance(root, vec![("a", rat(1, 2)), ("b", rat(1, 3))])
        .unwrap_err();
    assert!(err.to_string().contains("sum to 5/6"), "{err}");
    let err = b
        .chance(root, vec![("a", rat(3, 2)), ("b", rat(-1, 2))])
        .unwrap_err();
    assert!(err.to_string().contains("negative"), "{err}");
}

#[test]
fn general_sum_games_keep_both_payoffs() {
    let mut b = GameBuilder::new("gs", "A", "B");
    let root = b.root();
    let c = b.decision(root, 0, "s", &["x", "y"]).unwrap();
    b.terminal(c[0], [int(1), int(2)]).unwrap();
    b.terminal(c[1], [int(1), int(1)]).unwrap();
    let g = b.build().unwrap();
    assert_eq!(g.sum_kind(), super::SumKind::General);
    assert_eq!([g.payoff(0, 1), g.payoff(1, 1)], [int(2), int(1)]);
    let err = g.require_constant_sum("cfr").unwrap_err();
    assert!(matches!(err, GameError::GeneralSum { .. }), "{err}");
}

#[test]
fn constant_sum_games_are_kept() {
    let mut b = GameBuilder::new("cs", "A", "B");
    let root = b.root();
    let c = b.decision(root, 0, "s", &["x", "y"]).unwrap();
    b.terminal(c[0], [int(1), int(2)]).unwrap();
    b.terminal(c[1], [int(3), int(0)]).unwrap();
    let g = b.build().unwrap();
    assert_eq!(g.constant_sum, int(3));
    assert_eq!(g.payoff(0, 1), int(2));
    assert!(g.is_constant_sum() && g.payoff1.is_none());
}

#[test]
fn unset_nodes_and_double_sets_are_errors() {
    let mut b = GameBuilder::new("bad", "A", "B");
    let root = b.root();
    let c = b.decision(root, 0, "s", &["x", "y"]).unwrap();
    b.terminal_zero_sum(c[0], int(1)).unwrap();
    assert!(matches!(
        b.terminal_zero_sum(c[0], int(1)),
        Err(GameError::NodeAlreadySet { .. })
    ));
    let err = b.build().unwrap_err();
    assert_eq!(err, GameError::UnsetNode { path: "y".into() });
}

#[test]
fn duplicate_or_missing_actions_are_errors() {
    let mut b = GameBuilder::new("bad", "A", "B");
    let root = b.root();
    assert!(matches!(
        b.decision(root, 0, "s", &["x", "x"]),
        Err(GameError::BadActions { .. })
    ));
    assert!(matches!(
        b.decision::<&str>(root, 0, "s", &[]),
        Err(GameError::BadActions { .. })
    ));
    assert!(matches!(
        b.decision(root, 2, "s", &["x"]),
        Err(GameError::BadPlayer(2))
    ));
}
