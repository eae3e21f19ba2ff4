//! The late-interaction re-rank stage and what it reads: token vectors stored by `remember`
//! (and replaced by `revise`), the conversation order of a `session_id` (kept across a reopen,
//! left by forget, a revision in the revised memory's place), and a recall whose head only is
//! re-scored, with its scores in the details and its calibrated score as the relevance signal.

use hebbs_core::recall::rerank::{
    Calibration, CueCodes, CONVERSATION_WEIGHT, NEIGHBOUR_WEIGHT, WINDOW_WEIGHT,
};
use hebbs_core::recall::Rerank;
use hebbs_core::{
    Engine, ForgetRequest, MemoryId, RecallRequest, RememberInput, RevisionInput, ScoringWeights,
    Strategy, TokenVectors,
};
use proptest::strategy::Strategy as _;

use crate::common::{field_of, input, open};

const DIM: usize = 4;

/// Token vectors whose tokens are the unit axes `axes` (exact in int8).
fn axes(axes: &[usize]) -> TokenVectors {
    let mut codes = vec![0i8; axes.len() * DIM];
    for (row, axis) in axes.iter().enumerate() {
        codes[row * DIM + axis] = 127;
    }
    TokenVectors {
        dimension: DIM,
        codes,
        scales: vec![1.0 / 127.0; axes.len()],
    }
}

fn unit(axis: usize) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[axis] = 1.0;
    v
}

/// A dense vector at cosine `cos` to axis 0.
fn at_cosine(cos: f32) -> Vec<f32> {
    vec![cos, (1.0 - cos * cos).sqrt(), 0.0, 0.0]
}

fn relevance_only() -> ScoringWeights {
    ScoringWeights {
        w_relevance: 1.0,
        w_recency: 0.0,
        w_importance: 0.0,
        w_reinforcement: 0.0,
        ..ScoringWeights::default()
    }
}

fn turn(content: &str, session: &str, created_at: u64, tokens: &[usize]) -> RememberInput {
    RememberInput {
        session_id: Some(session.into()),
        token_vectors: Some(axes(tokens)),
        ..input(content, at_cosine(0.5), None, Some(created_at))
    }
}

#[test]
fn remember_stores_token_vectors_and_revise_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let memory = engine
        .remember(RememberInput {
            token_vectors: Some(axes(&[0, 1])),
            ..input("first", unit(0), None, None)
        })
        .unwrap();
    assert_eq!(
        engine.get_token_vectors(&[memory.id]).unwrap(),
        vec![Some(axes(&[0, 1]))]
    );
    let revised = engine
        .revise(
            &memory.id,
            RevisionInput {
                content: Some("second".into()),
                embedding: Some(unit(1)),
                token_vectors: Some(axes(&[2, 3, 3])),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(
        engine.get_token_vectors(&[revised.id]).unwrap(),
        vec![Some(axes(&[2, 3, 3]))]
    );
    let same_content = engine
        .revise(
            &revised.id,
            RevisionInput {
                importance: Some(0.9),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(
        engine.get_token_vectors(&[same_content.id]).unwrap(),
        vec![Some(axes(&[2, 3, 3]))],
        "a revision that keeps the content keeps its token vectors"
    );
    let bad = engine
        .remember(RememberInput {
            token_vectors: Some(TokenVectors {
                scales: vec![0.0],
                ..axes(&[0])
            }),
            ..input("bad", unit(0), None, None)
        })
        .unwrap_err();
    assert_eq!(field_of(bad), "token_vectors.scales[0]");
}

#[test]
fn conversation_order_is_created_at_then_arrival_survives_reopen_and_forget_leaves_it() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<MemoryId> = {
        let engine = open(dir.path());
        let stored = engine
            .remember_many(vec![
                turn("late", "s", 30, &[0]),
                turn("early a", "s", 10, &[0]),
                turn("early b", "s", 10, &[0]),
                turn("other session", "t", 5, &[0]),
                turn("middle", "s", 20, &[0]),
            ])
            .unwrap();
        let late_arrival = engine.remember(turn("early c", "s", 10, &[0])).unwrap();
        engine.close().unwrap();
        stored
            .iter()
            .map(|m| m.id)
            .chain([late_arrival.id])
            .collect()
    };
    let engine = open(dir.path());
    let expected = vec![ids[1], ids[2], ids[5], ids[4], ids[0]];
    assert_eq!(engine.conversation("s", 100).unwrap(), expected);
    assert_eq!(engine.conversation("t", 100).unwrap(), vec![ids[3]]);
    assert_eq!(engine.conversation("s", 2).unwrap(), expected[..2]);
    engine.forget(&ForgetRequest::ids(vec![ids[5]])).unwrap();
    assert_eq!(
        engine.conversation("s", 100).unwrap(),
        vec![ids[1], ids[2], ids[4], ids[0]]
    );
}

#[test]
fn a_revision_takes_the_revised_memorys_place_in_its_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<MemoryId> = {
        let engine = open(dir.path());
        let stored = engine
            .remember_many(vec![
                turn("first", "s", 10, &[0]),
                turn("second", "s", 20, &[0]),
                turn("third", "s", 30, &[0]),
            ])
            .unwrap();
        let ids: Vec<MemoryId> = stored.iter().map(|m| m.id).collect();
        let revised = engine
            .revise(
                &ids[1],
                RevisionInput {
                    importance: Some(0.9),
                    ..RevisionInput::default()
                },
            )
            .unwrap();
        let again = engine
            .revise(
                &revised.id,
                RevisionInput {
                    content: Some("second, corrected".into()),
                    embedding: Some(unit(1)),
                    ..RevisionInput::default()
                },
            )
            .unwrap();
        assert_eq!(
            engine.conversation("s", 100).unwrap(),
            vec![ids[0], again.id, ids[2]]
        );
        engine.close().unwrap();
        vec![ids[0], again.id, ids[2]]
    };
    let engine = open(dir.path());
    assert_eq!(engine.conversation("s", 100).unwrap(), ids);
    engine.forget(&ForgetRequest::ids(vec![ids[1]])).unwrap();
    assert_eq!(engine.conversation("s", 100).unwrap(), vec![ids[0], ids[2]]);
}

fn late_interaction(cue_tokens: &[usize], top_k: usize, top_n: usize) -> RecallRequest {
    RecallRequest {
        rerank: Rerank::LateInteraction,
        rerank_top_n: top_n,
        cue_token_vectors: Some(cue_tokens.iter().map(|axis| unit(*axis)).collect()),
        top_k,
        scoring_weights: relevance_only(),
        ..RecallRequest::similarity(unit(0))
    }
}

#[test]
fn the_stage_reorders_only_the_head_and_reports_its_scores() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // Dense order: m0 (cos 0.9) > m1 > m2 > m3 > m4. Token vectors: m2 matches the cue's
    // tokens best, m0 worst; m4 would match best of all but is outside the head.
    let tokens: [&[usize]; 5] = [&[3], &[1, 3], &[1, 2], &[3], &[1, 2]];
    let cosines = [0.9, 0.8, 0.7, 0.6, 0.5];
    let ids: Vec<MemoryId> = engine
        .remember_many(
            tokens
                .iter()
                .zip(cosines)
                .enumerate()
                .map(|(i, (t, cos))| RememberInput {
                    token_vectors: Some(axes(t)),
                    ..input(&format!("m{i}"), at_cosine(cos), None, None)
                })
                .collect(),
        )
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    let plain = engine
        .recall(&RecallRequest {
            top_k: 5,
            scoring_weights: relevance_only(),
            ..RecallRequest::similarity(unit(0))
        })
        .unwrap();
    let plain_ids: Vec<MemoryId> = plain.results.iter().map(|r| r.memory.id).collect();
    assert_eq!(plain_ids, ids);
    let output = engine.recall(&late_interaction(&[1, 2], 5, 3)).unwrap();
    assert_eq!(output.results[0].memory.id, ids[2]);
    let scored: Vec<&hebbs_core::RecallResult> = output
        .results
        .iter()
        .filter(|r| r.strategy_details[0].rerank_score.is_some())
        .collect();
    assert_eq!(scored.len(), 3, "the head is the three most relevant");
    let late = |r: &&hebbs_core::RecallResult| r.strategy_details[0].late_interaction_score;
    let calibration = Calibration {
        floor: Calibration::floor_of(scored.iter().filter_map(late).collect()),
        best: scored.iter().filter_map(late).fold(f32::MIN, f32::max),
    };
    for result in &scored {
        let detail = &result.strategy_details[0];
        let late = detail
            .late_interaction_score
            .expect("a head result is scored");
        assert_eq!(detail.rerank_score, Some(late), "no signal applies here");
        let relevance = calibration.relevance(late);
        assert!(
            (result.signals.relevance - relevance).abs() < 1e-6,
            "min-max over the head"
        );
        assert_eq!(
            result.score, result.signals.relevance,
            "relevance-only weights"
        );
    }
    assert_eq!(output.results[0].signals.relevance, 1.0);
    assert!(output.results[0].strategy_details[0].late_interaction_score > Some(0.99));
    // Past the head, m3 and m4 keep no stage score, and are not taken to match better than
    // the weakest candidate the stage scored (relevance 0: at or below the head's upper
    // quartile): their relevance is capped at its.
    let weakest = scored
        .iter()
        .map(|r| r.signals.relevance)
        .fold(f32::INFINITY, f32::min);
    for id in [ids[3], ids[4]] {
        let result = output.results.iter().find(|r| r.memory.id == id).unwrap();
        assert_eq!(result.strategy_details[0].rerank_score, None);
        assert_eq!(result.signals.relevance, weakest);
        assert_eq!(result.score, weakest);
    }
    let plain_relevance = plain.results[3].strategy_details[0].relevance;
    assert!(
        plain_relevance > weakest,
        "the cap lowered the first stage's cosine"
    );
}

#[test]
fn a_candidate_gains_from_its_conversation_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // Two candidates with the same weak match; the first sits next to a turn that matches the
    // cue exactly (and is itself far from the cue vector, so outside the head).
    let stored = engine
        .remember_many(vec![
            RememberInput {
                session_id: Some("s".into()),
                token_vectors: Some(axes(&[1])),
                ..input("answer turn", at_cosine(-0.9), None, Some(1))
            },
            RememberInput {
                session_id: Some("s".into()),
                token_vectors: Some(axes(&[3])),
                ..input("question turn", at_cosine(0.9), None, Some(2))
            },
            RememberInput {
                token_vectors: Some(axes(&[3])),
                ..input("lonely turn", at_cosine(0.95), None, Some(3))
            },
        ])
        .unwrap();
    let output = engine.recall(&late_interaction(&[1], 3, 2)).unwrap();
    // The answer turn joins the head as the neighbour of a head candidate (see
    // `a_strong_candidates_neighbours_join_the_head`) and ranks first.
    let order: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    assert_eq!(order, vec![stored[0].id, stored[1].id, stored[2].id]);
    let detail = &output.results[1].strategy_details[0];
    let late = detail.late_interaction_score.unwrap();
    let total = detail.rerank_score.unwrap();
    // The neighbour's score (1), the window's gain over the turn alone (1 - 0), and the
    // answer turn as the best other head candidate of its conversation.
    assert!(
        (total - late - NEIGHBOUR_WEIGHT * 1.0 - WINDOW_WEIGHT * 1.0 - CONVERSATION_WEIGHT * 1.0)
            .abs()
            < 1e-3,
        "{late} {total}"
    );
    let lonely = &output.results[2].strategy_details[0];
    assert_eq!(lonely.rerank_score, lonely.late_interaction_score);
}

#[test]
fn a_strong_candidates_neighbours_join_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // A conversation whose answer turns are far from the cue vector: only the question turn
    // (cosine 0.9) is in the head of one. Its neighbours within two turns join the head; the
    // answer three turns away and matching memories in no conversation do not.
    let at = |content: &str, cos: f32, created_at: u64, tokens: &[usize]| RememberInput {
        session_id: Some("s".into()),
        token_vectors: Some(axes(tokens)),
        ..input(content, at_cosine(cos), None, Some(created_at))
    };
    let stored = engine
        .remember_many(vec![
            RememberInput {
                token_vectors: Some(axes(&[1])),
                ..input("answer", at_cosine(-0.9), None, Some(1))
            },
            at("question", 0.9, 2, &[3]),
            at("other", 0.3, 3, &[2]),
            at("filler", 0.2, 4, &[2]),
            at("far answer", 0.1, 5, &[1]),
            RememberInput {
                token_vectors: Some(axes(&[1])),
                ..input("lonely answer", at_cosine(0.0), None, Some(6))
            },
        ])
        .unwrap();
    let answer = engine.remember(at("answer turn", -0.9, 1, &[1])).unwrap();
    let question = engine
        .recall(&RecallRequest {
            top_k: 1,
            scoring_weights: relevance_only(),
            ..RecallRequest::similarity(unit(0))
        })
        .unwrap();
    assert_eq!(question.results[0].memory.id, stored[1].id);
    let output = engine.recall(&late_interaction(&[1], 8, 1)).unwrap();
    let detail = |id: MemoryId| {
        let result = output.results.iter().find(|r| r.memory.id == id);
        result.map(|r| (r.score, r.strategy_details.clone()))
    };
    // The promoted answer turn: first, its own score and nothing else (its neighbours match
    // nothing, its window holds its own match, no other head candidate of the conversation
    // matches), a detail of the request's strategy with relevance 0, and the best stage score
    // of the head, so relevance 1.
    assert_eq!(output.results[0].memory.id, answer.id);
    let (score, details) = detail(answer.id).unwrap();
    assert_eq!(score, 1.0, "the best stage score in the head: relevance 1");
    assert_eq!(details.len(), 1);
    assert_eq!(details[0].strategy, Strategy::Similarity);
    assert_eq!(details[0].relevance, 0.0);
    assert!((details[0].late_interaction_score.unwrap() - 1.0).abs() < 1e-3);
    assert!((details[0].rerank_score.unwrap() - 1.0).abs() < 1e-3);
    // The question turn: the answer next to it, its window's gain and the answer as the best
    // other head candidate of its conversation.
    let (_, details) = detail(stored[1].id).unwrap();
    let expected = CONVERSATION_WEIGHT + NEIGHBOUR_WEIGHT + WINDOW_WEIGHT;
    assert!(
        (details[0].rerank_score.unwrap() - expected).abs() < 1e-3,
        "{details:?}"
    );
    for promoted in [stored[2].id, stored[3].id] {
        let (_, details) = detail(promoted).expect("a neighbour within two turns is promoted");
        assert!(details[0].late_interaction_score.is_some());
    }
    for left in [stored[0].id, stored[4].id, stored[5].id] {
        if let Some((_, details)) = detail(left) {
            assert_eq!(details[0].rerank_score, None, "not in the head: {left:?}");
        }
    }
}

#[test]
fn a_cue_spread_over_adjacent_turns_scores_their_window() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // The cue's two tokens: one in "first half", the other in the next turn "second half";
    // "lonely" matches neither and is in no conversation.
    let stored = engine
        .remember_many(vec![
            turn("first half", "s", 1, &[0]),
            turn("second half", "s", 2, &[1]),
            RememberInput {
                token_vectors: Some(axes(&[2])),
                ..input("lonely", at_cosine(0.5), None, Some(3))
            },
        ])
        .unwrap();
    let output = engine.recall(&late_interaction(&[0, 1], 3, 3)).unwrap();
    let detail = |id: MemoryId| {
        let result = output.results.iter().find(|r| r.memory.id == id).unwrap();
        result.strategy_details[0].clone()
    };
    let first = detail(stored[0].id);
    // Each token is matched by one memory of three: equal IDF weights, so each half scores 0.5
    // alone and their window 1.
    assert!((first.late_interaction_score.unwrap() - 0.5).abs() < 1e-3);
    let expected =
        0.5 + CONVERSATION_WEIGHT * 0.5 + NEIGHBOUR_WEIGHT * 0.5 + WINDOW_WEIGHT * (1.0 - 0.5);
    assert!(
        (first.rerank_score.unwrap() - expected).abs() < 1e-3,
        "{first:?}"
    );
    let lonely = detail(stored[2].id);
    assert_eq!(lonely.rerank_score, lonely.late_interaction_score);
}

#[test]
fn a_candidate_gains_from_the_best_other_match_of_its_conversation_in_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // "match" and "same conversation" share session s, four turns apart (beyond the
    // neighbour window; the turns between, far from the cue vector, join the head as the
    // neighbours of "match" and match nothing); "elsewhere" is in no conversation.
    let far = |content: &str, at| RememberInput {
        session_id: Some("s".into()),
        token_vectors: Some(axes(&[2])),
        ..input(content, at_cosine(-0.9), None, Some(at))
    };
    let stored = engine
        .remember_many(vec![
            RememberInput {
                session_id: Some("s".into()),
                token_vectors: Some(axes(&[0])),
                ..input("match", at_cosine(0.9), None, Some(1))
            },
            far("between 1", 2),
            far("between 2", 3),
            far("between 3", 4),
            RememberInput {
                session_id: Some("s".into()),
                token_vectors: Some(axes(&[1])),
                ..input("same conversation", at_cosine(0.8), None, Some(5))
            },
            RememberInput {
                token_vectors: Some(axes(&[1])),
                ..input("elsewhere", at_cosine(0.85), None, Some(6))
            },
        ])
        .unwrap();
    let output = engine.recall(&late_interaction(&[0], 6, 3)).unwrap();
    let position = |id: MemoryId| output.results.iter().position(|r| r.memory.id == id);
    let bonus = |id: MemoryId| {
        let result = output.results.iter().find(|r| r.memory.id == id).unwrap();
        let detail = &result.strategy_details[0];
        detail.rerank_score.unwrap() - detail.late_interaction_score.unwrap()
    };
    assert_eq!(output.results[0].memory.id, stored[0].id);
    assert!(
        (bonus(stored[4].id) - 0.2).abs() < 1e-3,
        "{}",
        bonus(stored[4].id)
    );
    assert!(bonus(stored[5].id).abs() < 1e-6);
    assert!(
        bonus(stored[0].id).abs() < 1e-3,
        "its conversation's other head match scores 0"
    );
    assert!(position(stored[4].id) < position(stored[5].id));
}

#[test]
fn the_first_stage_bm25_adds_its_share_of_the_heads_best() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let stored = engine
        .remember_many(vec![
            RememberInput {
                token_vectors: Some(axes(&[0])),
                ..input("apple pie", at_cosine(0.8), None, Some(1))
            },
            RememberInput {
                token_vectors: Some(axes(&[0])),
                ..input("banana bread", at_cosine(0.9), None, Some(2))
            },
        ])
        .unwrap();
    let mut request = late_interaction(&[0], 2, 2);
    request.strategies = vec![Strategy::Hybrid.into()];
    request.cue_text = Some("apple".into());
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results[0].memory.id, stored[0].id);
    let bonus = |i: usize| {
        let detail = &output.results[i].strategy_details[0];
        detail.rerank_score.unwrap() - detail.late_interaction_score.unwrap()
    };
    assert!((bonus(0) - 0.05).abs() < 1e-4, "{}", bonus(0));
    assert!(bonus(1).abs() < 1e-6, "{}", bonus(1));
}

#[test]
fn entity_and_time_named_in_the_cue_add_their_bonus() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    // 2023-05-08 and 2023-09-01 in microseconds.
    let may = 1_683_504_000_000_000;
    let september = 1_693_526_400_000_000;
    let stored = engine
        .remember_many(vec![
            RememberInput {
                token_vectors: Some(axes(&[0])),
                ..input("a", at_cosine(0.9), Some("Caroline"), Some(september))
            },
            RememberInput {
                token_vectors: Some(axes(&[0])),
                ..input("b", at_cosine(0.8), Some("Melanie"), Some(may))
            },
        ])
        .unwrap();
    let mut request = late_interaction(&[0], 2, 2);
    request.strategies = vec![Strategy::Hybrid.into()];
    request.cue_text = Some("What did Melanie do in May 2023?".into());
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results[0].memory.id, stored[1].id);
    let detail = &output.results[0].strategy_details[0];
    let bonus = detail.rerank_score.unwrap() - detail.late_interaction_score.unwrap();
    assert!((bonus - 0.10).abs() < 1e-4, "{bonus}");
}

#[test]
fn bad_stage_parameters_name_their_field() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    engine
        .remember(RememberInput {
            token_vectors: Some(axes(&[0])),
            ..input("x", unit(0), None, None)
        })
        .unwrap();
    let mut request = late_interaction(&[0], 1, 1);
    request.cue_token_vectors = None;
    assert_eq!(
        field_of(engine.recall(&request).unwrap_err()),
        "cue_token_vectors"
    );
    let request = late_interaction(&[0], 1, 0);
    assert_eq!(
        field_of(engine.recall(&request).unwrap_err()),
        "rerank_top_n"
    );
    let mut request = late_interaction(&[0], 1, 1);
    request.cue_token_vectors = Some(vec![vec![1.0, 0.0]]);
    assert_eq!(
        field_of(engine.recall(&request).unwrap_err()),
        "cue_token_vectors"
    );
    let mut request = late_interaction(&[0], 1, 1);
    request.cue_token_vectors = Some(vec![vec![f32::NAN; DIM]]);
    assert_eq!(
        field_of(engine.recall(&request).unwrap_err()),
        "cue_token_vectors[0]"
    );
    assert_eq!(
        "late_interaction".parse::<Rerank>().unwrap(),
        Rerank::LateInteraction
    );
    assert!("colbert".parse::<Rerank>().is_err());
}

#[test]
fn stores_without_the_stage_keep_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let engine: Engine = open(dir.path());
    let ids: Vec<MemoryId> = (0..3)
        .map(|i| {
            engine
                .remember(input(
                    &format!("m{i}"),
                    at_cosine(0.9 - 0.1 * i as f32),
                    None,
                    None,
                ))
                .unwrap()
                .id
        })
        .collect();
    // No token vectors stored: the stage scores nobody and the composite order stands.
    let output = engine.recall(&late_interaction(&[0], 3, 3)).unwrap();
    let order: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    assert_eq!(order, ids);
    assert!(output
        .results
        .iter()
        .all(|r| r.strategy_details[0].rerank_score.is_none()));
}

/// Random unit token vectors of dimension 8, quantised as `remember` stores them.
fn random_tokens(rows: &[Vec<f32>]) -> TokenVectors {
    let cue = CueCodes::quantize(rows);
    TokenVectors {
        dimension: cue.dimension,
        codes: cue.codes,
        scales: cue.scales,
    }
}

fn unit_row() -> impl proptest::strategy::Strategy<Value = Vec<f32>> {
    proptest::collection::vec(-1.0f32..1.0, 8)
        .prop_filter("not all zero", |v| v.iter().any(|x| x.abs() > 1e-2))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The stage reads a candidate's neighbours only while it can still reach `top_k`; the
    /// `top_k` it returns are the first `top_k` of a recall that scores every neighbour (one
    /// with `top_k = rerank_top_n`), with the same scores.
    #[test]
    fn reading_neighbours_only_for_candidates_that_can_reach_top_k_changes_no_result(
        memories in proptest::collection::vec(
            (unit_row(), proptest::collection::vec(unit_row(), 1..4), 0usize..4),
            8..40,
        ),
        cue in proptest::collection::vec(unit_row(), 1..4),
        top_k in 1usize..8,
        top_n in 8usize..30,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        engine
            .remember_many(
                memories
                    .iter()
                    .enumerate()
                    .map(|(i, (vector, tokens, session))| RememberInput {
                        session_id: (*session > 0).then(|| format!("s{session}")),
                        token_vectors: Some(random_tokens(tokens)),
                        ..input(&format!("m{i}"), vector.clone(), None, Some(i as u64 + 1))
                    })
                    .collect(),
            )
            .unwrap();
        let request = |top_k| RecallRequest {
            rerank: Rerank::LateInteraction,
            rerank_top_n: top_n,
            cue_token_vectors: Some(cue.clone()),
            top_k,
            scoring_weights: relevance_only(),
            ..RecallRequest::similarity(cue[0].clone())
        };
        let short = engine.recall(&request(top_k)).unwrap().results;
        let every = engine.recall(&request(top_n)).unwrap().results;
        let scores = |results: &[hebbs_core::RecallResult]| -> Vec<(MemoryId, Option<f32>)> {
            results
                .iter()
                .map(|r| (r.memory.id, r.strategy_details[0].rerank_score))
                .collect()
        };
        let expected = scores(&every);
        proptest::prop_assert_eq!(scores(&short), expected[..short.len()].to_vec());
        proptest::prop_assert_eq!(short.len(), top_k.min(every.len()));
    }
}

#[test]
fn promoted_neighbours_keep_the_entity_scope_and_time_range_and_none_join_under_a_relevance_floor()
{
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let said =
        |content: &str, entity: &str, cos: f32, created_at: u64, tokens: &[usize]| RememberInput {
            session_id: Some("s".into()),
            token_vectors: Some(axes(tokens)),
            ..input(content, at_cosine(cos), Some(entity), Some(created_at))
        };
    let stored = engine
        .remember_many(vec![
            said("question", "a", 0.9, 1, &[3]),
            said("answer by b", "b", -0.9, 2, &[1]),
            said("answer by a", "a", -0.8, 3, &[1]),
        ])
        .unwrap();
    // The ids of the re-scored results (the head of one and what joined it).
    let scored = |request: &RecallRequest| -> std::collections::HashSet<MemoryId> {
        let output = engine.recall(request).unwrap();
        output
            .results
            .iter()
            .filter(|r| r.strategy_details[0].rerank_score.is_some())
            .map(|r| r.memory.id)
            .collect()
    };
    let ids = |of: &[usize]| of.iter().map(|i| stored[*i].id).collect();
    assert_eq!(scored(&late_interaction(&[1], 3, 1)), ids(&[0, 1, 2]));
    let scoped = RecallRequest {
        entity_id: Some("a".into()),
        ..late_interaction(&[1], 3, 1)
    };
    assert_eq!(scored(&scoped), ids(&[0, 2]));
    let floored = RecallRequest {
        min_relevance: Some(0.01),
        ..late_interaction(&[1], 3, 1)
    };
    assert_eq!(scored(&floored), ids(&[0]));
    // A temporal-only recall keeps its time range: "answer by a" (created at 3) is the
    // question's neighbour in a's scope, but outside [1, 1].
    let windowed = RecallRequest {
        entity_id: Some("a".into()),
        time_range: Some((1, 1)),
        ..late_interaction(&[1], 3, 1).with_strategies(&[Strategy::Temporal])
    };
    assert_eq!(scored(&windowed), ids(&[0]));
    let wider = RecallRequest {
        time_range: Some((1, 3)),
        ..windowed.clone()
    };
    assert_eq!(scored(&wider), ids(&[0, 2]));
}
