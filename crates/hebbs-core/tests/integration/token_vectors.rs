//! `put_token_vectors` / `get_token_vectors`: stored durably (equal after a reopen), replaced
//! by a second put, deleted by forget and its cascade, and bad input (a shape, an unknown id)
//! is rejected with the field named and nothing written.

use hebbs_core::{
    Edge, EdgeType, Engine, ForgetRequest, MemoryId, MemoryKind, RememberInput, TokenVectors,
};

use hebbs_core::store::TOKEN_VECTORS;

use crate::common::{field_of, input, open, Rng};

const DIM: usize = 8;
const TOKEN_DIM: usize = 4;

/// Deterministic vectors of `tokens` tokens, different for each `seed`.
fn token_vectors(seed: u64, tokens: usize) -> TokenVectors {
    let mut rng = Rng(seed);
    TokenVectors {
        dimension: TOKEN_DIM,
        codes: (0..tokens * TOKEN_DIM)
            .map(|_| (rng.unit() * 127.0) as i8)
            .collect(),
        scales: (0..tokens).map(|_| 0.01 + rng.unit().abs()).collect(),
    }
}

fn remembered(engine: &Engine, count: usize, rng: &mut Rng) -> Vec<MemoryId> {
    (0..count)
        .map(|i| {
            engine
                .remember(input(
                    &format!("memory {i}"),
                    rng.vector(DIM),
                    Some("e"),
                    None,
                ))
                .unwrap()
                .id
        })
        .collect()
}

#[test]
fn stored_vectors_survive_a_reopen_and_a_second_put_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(3);
    let (ids, items) = {
        let engine = open(dir.path());
        let ids = remembered(&engine, 3, &mut rng);
        let items: Vec<(MemoryId, TokenVectors)> = ids[..2]
            .iter()
            .enumerate()
            .map(|(i, id)| (*id, token_vectors(i as u64, 3 + i)))
            .collect();
        engine.put_token_vectors(&items).unwrap();
        engine.close().unwrap();
        (ids, items)
    };
    let engine = open(dir.path());
    let got = engine.get_token_vectors(&ids).unwrap();
    assert_eq!(got[0].as_ref(), Some(&items[0].1));
    assert_eq!(got[1].as_ref(), Some(&items[1].1));
    assert_eq!(got[2], None, "a memory without token vectors");
    let replacement = token_vectors(99, 5);
    engine
        .put_token_vectors(&[(ids[0], replacement.clone())])
        .unwrap();
    assert_eq!(
        engine.get_token_vectors(&ids[..1]).unwrap(),
        vec![Some(replacement)]
    );
}

#[test]
fn forget_deletes_them_with_the_memory_and_its_cascaded_insights() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let ids = remembered(&engine, 2, &mut rng);
    let insight = engine
        .remember(RememberInput {
            kind: MemoryKind::Insight,
            edges: vec![Edge::new(ids[0], EdgeType::InsightFrom)],
            ..RememberInput::new("insight from memory 0", rng.vector(DIM))
        })
        .unwrap();
    let all = [ids[0], ids[1], insight.id];
    let items: Vec<(MemoryId, TokenVectors)> = all
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, token_vectors(i as u64, 2)))
        .collect();
    engine.put_token_vectors(&items).unwrap();
    let result = engine.forget(&ForgetRequest::ids(vec![ids[0]])).unwrap();
    assert_eq!(result.forgotten_count, 1);
    let got = engine.get_token_vectors(&all).unwrap();
    assert_eq!(got, vec![None, Some(items[1].1.clone()), None]);
    for id in [ids[0], insight.id] {
        let cfs: Vec<&str> = engine
            .find_bytes(id.as_bytes())
            .unwrap()
            .into_iter()
            .map(|(cf, _)| cf)
            .collect();
        assert!(!cfs.contains(&TOKEN_VECTORS), "{cfs:?}");
    }
}

#[test]
fn bad_input_names_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    let ids = remembered(&engine, 2, &mut rng);
    let good = (ids[0], token_vectors(1, 2));
    let short_codes = TokenVectors {
        codes: vec![1; 7],
        ..token_vectors(2, 2)
    };
    let nan_scale = TokenVectors {
        scales: vec![0.5, f32::NAN],
        ..token_vectors(3, 2)
    };
    let no_dimension = TokenVectors {
        dimension: 0,
        ..token_vectors(4, 2)
    };
    let unknown = MemoryId::from_slice(&[7; 16], "id").unwrap();
    let cases = [
        ((ids[1], short_codes), "items[1].codes"),
        ((ids[1], nan_scale), "items[1].scales[1]"),
        ((ids[1], no_dimension), "items[1].dimension"),
        ((unknown, token_vectors(5, 2)), "items[1].id"),
    ];
    for (bad, field) in cases {
        let error = engine.put_token_vectors(&[good.clone(), bad]).unwrap_err();
        assert_eq!(field_of(error), field);
        assert_eq!(engine.get_token_vectors(&ids).unwrap(), vec![None, None]);
    }
}
