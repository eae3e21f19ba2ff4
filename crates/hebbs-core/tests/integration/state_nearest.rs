//! `state_*` (named values for the layers above) and `nearest` (k-NN as a pure read).

use hebbs_core::HebbsError;

use super::common::{input, normalized, open, Rng};

#[test]
fn state_survives_a_reopen_and_checks_its_names() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = open(dir.path());
        engine.state_put("reflect/cursor/*", Some(b"{}")).unwrap();
        engine.state_put("reflect/session/a", Some(b"1")).unwrap();
        assert!(matches!(
            engine.state_put("", Some(b"x")),
            Err(HebbsError::InvalidInput { ref field, .. }) if field == "name"
        ));
        engine.close().unwrap();
    }
    let engine = open(dir.path());
    assert_eq!(
        engine.state_get("reflect/cursor/*").unwrap().as_deref(),
        Some(&b"{}"[..])
    );
    assert_eq!(engine.state_scan("reflect/session/").unwrap().len(), 1);
    engine.state_put("reflect/session/a", None).unwrap();
    assert!(engine.state_scan("reflect/").unwrap().len() == 1);
    assert_eq!(engine.health().memory_count, 0);
}

#[test]
fn nearest_matches_brute_force_and_records_no_access() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    let vectors: Vec<Vec<f32>> = (0..60).map(|_| normalized(rng.vector(16))).collect();
    let mut ids = Vec::new();
    for (i, vector) in vectors.iter().enumerate() {
        let entity = if i % 2 == 0 { "even" } else { "odd" };
        let memory = engine
            .remember(input(&format!("m{i}"), vector.clone(), Some(entity), None))
            .unwrap();
        ids.push(memory.id);
    }
    let query = normalized(rng.vector(16));
    let dot = |v: &Vec<f32>| v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>();
    let mut expected: Vec<usize> = (0..60).filter(|i| i % 2 == 1).collect();
    expected.sort_by(|a, b| dot(&vectors[*b]).total_cmp(&dot(&vectors[*a])));
    let hits = engine.nearest(&query, 5, Some("odd")).unwrap();
    let found: Vec<_> = hits.iter().map(|(id, _)| *id).collect();
    let want: Vec<_> = expected[..5].iter().map(|i| ids[*i]).collect();
    assert_eq!(found, want);
    assert!((hits[0].1 - dot(&vectors[expected[0]])).abs() < 1e-4);
    for id in &found {
        assert_eq!(engine.get(id, false).unwrap().access_count, 0);
    }
    engine.reinforce(&found[..1]).unwrap();
    assert_eq!(engine.get(&found[0], false).unwrap().access_count, 1);
    assert_eq!(engine.get(&found[1], false).unwrap().access_count, 0);
    assert!(matches!(
        engine.nearest(&query, 0, None),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "k"
    ));
}
