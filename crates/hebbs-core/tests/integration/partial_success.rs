//! Partial success across strategies (seed 003 `RecallOutput.strategy_errors`): a strategy whose
//! own input is missing is reported while the others answer; a call whose strategies all fail
//! raises the first one's typed error; malformed values still fail the whole call up front.

use hebbs_core::{Engine, HebbsError, MemoryId, RecallRequest, Strategy, StrategyConfig};

use crate::common::{field_of, input, normalized, open};

const DIM: usize = 4;

fn unit(axis: usize) -> Vec<f32> {
    let mut v = vec![0.05; DIM];
    v[axis] = 1.0;
    normalized(v)
}

/// Three memories of entity `acme` about billing, and one of `globex`.
fn seed_store(engine: &Engine) -> Vec<MemoryId> {
    [
        ("acme billing dispute over the March invoice", 0, "acme"),
        ("acme asked for a billing discount", 1, "acme"),
        ("acme renewed the contract", 2, "acme"),
        ("globex billing contact changed", 3, "globex"),
    ]
    .into_iter()
    .map(|(content, axis, entity)| {
        engine
            .remember(input(content, unit(axis), Some(entity), None))
            .unwrap()
            .id
    })
    .collect()
}

/// A request running `strategies`, with the cue text "billing" and no vector, entity or seed.
fn bare(strategies: &[Strategy]) -> RecallRequest {
    RecallRequest {
        cue_vector: None,
        cue_text: Some("billing".into()),
        ..RecallRequest::similarity(Vec::new())
    }
    .with_strategies(strategies)
}

/// `(strategy, field)` of each reported strategy error.
fn reported(request: &RecallRequest, engine: &Engine) -> Vec<(Strategy, Option<String>)> {
    let output = engine.recall(request).unwrap();
    assert!(
        !output.results.is_empty(),
        "the strategies that have their inputs answer"
    );
    output
        .strategy_errors
        .into_iter()
        .map(|error| {
            assert!(!error.message.is_empty());
            (error.strategy, error.field)
        })
        .collect()
}

#[test]
fn similarity_answers_while_temporal_without_an_entity_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let ids = seed_store(&engine);
    let request = RecallRequest {
        cue_vector: Some(unit(0)),
        ..bare(&[Strategy::Similarity, Strategy::Temporal])
    };
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results[0].memory.id, ids[0]);
    assert!(output
        .results
        .iter()
        .all(|r| r.strategy_details[0].strategy == Strategy::Similarity));
    assert_eq!(output.strategy_errors.len(), 1);
    let error = &output.strategy_errors[0];
    assert_eq!(error.strategy, Strategy::Temporal);
    assert_eq!(error.field.as_deref(), Some("entity_id"));
    assert!(error.message.contains("entity_id"), "{}", error.message);
}

#[test]
fn each_strategy_missing_its_own_input_is_reported_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    seed_store(&engine);
    let with_entity = |strategies: &[Strategy]| RecallRequest {
        entity_id: Some("acme".into()),
        ..bare(strategies)
    };
    let cue = |field: &str| Some(field.to_owned());
    let cases = [
        (
            with_entity(&[Strategy::Temporal, Strategy::Similarity]),
            vec![(Strategy::Similarity, cue("cue"))],
        ),
        (
            with_entity(&[Strategy::Analogical, Strategy::Temporal]),
            vec![(Strategy::Analogical, cue("cue"))],
        ),
        (
            with_entity(&[Strategy::Temporal, Strategy::Causal]),
            vec![(Strategy::Causal, cue("seed_memory_id"))],
        ),
        (
            with_entity(&[Strategy::Hybrid, Strategy::Keyword]),
            vec![(Strategy::Hybrid, cue("cue"))],
        ),
        (
            RecallRequest {
                cue_text: None,
                ..with_entity(&[Strategy::Keyword, Strategy::Regex, Strategy::Temporal])
            },
            vec![
                (Strategy::Keyword, cue("cue")),
                (Strategy::Regex, cue("cue")),
            ],
        ),
        (
            RecallRequest {
                cue_text: Some("   ".into()),
                cue_vector: Some(unit(1)),
                ..with_entity(&[Strategy::Hybrid, Strategy::Similarity])
            },
            vec![(Strategy::Hybrid, cue("cue"))],
        ),
        (
            RecallRequest {
                cue_vector: Some(unit(1)),
                ..bare(&[Strategy::Temporal, Strategy::Causal, Strategy::Analogical])
            },
            vec![(Strategy::Temporal, cue("entity_id"))],
        ),
    ];
    for (request, expected) in cases {
        assert_eq!(reported(&request, &engine), expected, "{request:?}");
    }
}

#[test]
fn a_per_strategy_override_supplies_the_missing_input() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let ids = seed_store(&engine);
    let mut request = bare(&[Strategy::Similarity]);
    request.strategies = vec![
        Strategy::Similarity.into(),
        StrategyConfig {
            entity_id: Some("globex".into()),
            ..Strategy::Temporal.into()
        },
    ];
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results.len(), 1);
    assert_eq!(output.results[0].memory.id, ids[3]);
    assert_eq!(output.strategy_errors.len(), 1);
    assert_eq!(output.strategy_errors[0].strategy, Strategy::Similarity);
    assert_eq!(output.strategy_errors[0].field.as_deref(), Some("cue"));
}

#[test]
fn when_every_strategy_misses_its_input_the_first_typed_error_is_raised() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    seed_store(&engine);
    let cases = [
        (
            bare(&[Strategy::Temporal, Strategy::Similarity]),
            "entity_id",
        ),
        (bare(&[Strategy::Similarity, Strategy::Temporal]), "cue"),
        (bare(&[Strategy::Causal]), "seed_memory_id"),
        (
            RecallRequest {
                cue_text: None,
                ..bare(&[Strategy::Regex, Strategy::Keyword])
            },
            "cue",
        ),
    ];
    for (request, field) in cases {
        assert_eq!(field_of(engine.recall(&request).unwrap_err()), field);
    }
}

#[test]
fn a_strategy_failing_at_run_time_reports_no_field() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    seed_store(&engine);
    let request = RecallRequest {
        seed_memory_id: Some(MemoryId::new()),
        entity_id: Some("acme".into()),
        ..bare(&[Strategy::Temporal, Strategy::Causal])
    };
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results.len(), 3);
    assert_eq!(output.strategy_errors.len(), 1);
    assert_eq!(output.strategy_errors[0].strategy, Strategy::Causal);
    assert_eq!(output.strategy_errors[0].field, None);
}

#[test]
fn malformed_values_still_fail_the_whole_call() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    seed_store(&engine);
    let partial = || RecallRequest {
        cue_vector: Some(unit(0)),
        ..bare(&[Strategy::Similarity, Strategy::Temporal])
    };
    let mut duplicated = partial();
    duplicated.strategies.push(Strategy::Similarity.into());
    let mut bad_override = partial();
    bad_override.strategies[1].time_range = Some((9, 1));
    let cases = [
        (
            RecallRequest {
                time_range: Some((10, 5)),
                ..partial()
            },
            "time_range",
        ),
        (
            RecallRequest {
                max_depth: 11,
                ..partial()
            },
            "max_depth",
        ),
        (
            RecallRequest {
                top_k: 0,
                ..partial()
            },
            "top_k",
        ),
        (duplicated, "strategies"),
        (bad_override, "strategies[1].time_range"),
        (
            RecallRequest {
                cue_text: Some("(unclosed".into()),
                ..partial().with_strategies(&[Strategy::Similarity, Strategy::Regex])
            },
            "cue",
        ),
    ];
    for (request, field) in cases {
        assert!(matches!(
            engine.recall(&request),
            Err(HebbsError::InvalidInput { field: ref got, .. }) if got == field
        ));
    }
}
