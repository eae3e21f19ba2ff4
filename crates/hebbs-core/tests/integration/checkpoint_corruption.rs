//! A damaged index checkpoint is never trusted: a truncated, bit-flipped or missing file of the
//! vector index checkpoint (`hnsw/`) or of the full-text index (`text/`) is detected on open,
//! the index is rebuilt from RocksDB, and every memory is found again by vector and by keyword.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{input, open, Rng};
use hebbs_core::recall::{RecallRequest, Strategy};
use hebbs_core::{Engine, MemoryId};

const DIM: usize = 24;
const MEMORIES: usize = 300;

/// What a damage does to one file.
#[derive(Clone, Copy, Debug)]
enum Damage {
    Truncate,
    FlipByte,
    Remove,
}

fn damage(path: &Path, how: Damage) {
    match how {
        Damage::Truncate => {
            let bytes = fs::read(path).unwrap();
            fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
        }
        Damage::FlipByte => {
            let mut bytes = fs::read(path).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x5a;
            fs::write(path, bytes).unwrap();
        }
        Damage::Remove => fs::remove_file(path).unwrap(),
    }
}

/// A closed store of [`MEMORIES`] memories, each with a unique keyword, and what it holds.
fn stored(dir: &Path) -> Vec<(MemoryId, Vec<f32>, String)> {
    let mut rng = Rng(5);
    let vectors: Vec<Vec<f32>> = (0..MEMORIES).map(|_| rng.vector(DIM)).collect();
    let words: Vec<String> = (0..MEMORIES).map(|i| format!("word{i}z")).collect();
    let engine = open(dir);
    let inputs = (0..MEMORIES)
        .map(|i| {
            input(
                &format!("memory {}", words[i]),
                vectors[i].clone(),
                Some("e"),
                None,
            )
        })
        .collect();
    let memories = engine.remember_many(inputs).unwrap();
    drop(engine);
    memories
        .into_iter()
        .zip(vectors.into_iter().zip(words))
        .map(|(memory, (vector, word))| (memory.id, vector, word))
        .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found
}

fn assert_everything_found(engine: &Engine, memories: &[(MemoryId, Vec<f32>, String)]) {
    for (id, vector, word) in memories {
        let mut similar = RecallRequest::similarity(vector.clone());
        similar.top_k = 1;
        let top = engine.recall(&similar).unwrap();
        assert_eq!(top.results[0].memory.id, *id, "not found by its vector");
        let mut keyword =
            RecallRequest::similarity(Vec::new()).with_strategies(&[Strategy::Keyword]);
        keyword.cue_vector = None;
        keyword.cue_text = Some(word.clone());
        let found = engine.recall(&keyword).unwrap();
        assert_eq!(
            found.results.first().map(|r| r.memory.id),
            Some(*id),
            "{word}"
        );
    }
}

#[test]
fn a_damaged_vector_checkpoint_is_rebuilt_from_the_store() {
    let template = tempfile::tempdir().unwrap();
    let memories = stored(template.path());
    let checkpoint_files = files(&template.path().join("hnsw"));
    assert!(
        checkpoint_files.len() >= 4,
        "graph, data, slots and manifest"
    );
    for file in &checkpoint_files {
        for how in [Damage::Truncate, Damage::FlipByte, Damage::Remove] {
            let dir = tempfile::tempdir().unwrap();
            copy_tree(template.path(), dir.path());
            damage(
                &dir.path().join("hnsw").join(file.file_name().unwrap()),
                how,
            );
            let engine = open(dir.path());
            assert!(
                !engine.recovery().from_checkpoint,
                "{how:?} {} was trusted",
                file.display()
            );
            assert_everything_found(&engine, &memories);
            drop(engine);
            let reopened = open(dir.path());
            assert!(
                reopened.recovery().from_checkpoint,
                "the rebuilt index is checkpointed"
            );
        }
    }
    let intact = open(template.path());
    assert!(
        intact.recovery().from_checkpoint,
        "an intact checkpoint is loaded"
    );
}

#[test]
fn a_damaged_text_index_is_rebuilt_from_the_store() {
    let template = tempfile::tempdir().unwrap();
    let memories = stored(template.path());
    for file in files(&template.path().join("text")) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // tantivy's lock files hold nothing to damage
        }
        for how in [Damage::Truncate, Damage::FlipByte] {
            let dir = tempfile::tempdir().unwrap();
            copy_tree(template.path(), dir.path());
            damage(&dir.path().join("text").join(&name), how);
            let engine = open(dir.path());
            assert!(
                engine.recovery().text_replayed >= MEMORIES,
                "{how:?} {name} was trusted"
            );
            assert_everything_found(&engine, &memories);
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}
