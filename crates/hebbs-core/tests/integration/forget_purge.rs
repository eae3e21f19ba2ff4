//! `purge`: after a forget with purge and a close, no file under the database directory (WAL,
//! SST, manifest, LOG, index checkpoint) contains the erased content or the erased memories'
//! token vectors. Without purge the old SST still holds them, which shows the check can fail.

use std::path::Path;

use hebbs_core::{Engine, ForgetRequest, MemoryId, TokenVectors};

use crate::common::{input, open, Rng};

const DIM: usize = 16;

fn files_containing(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else {
            // RocksDB deletes obsolete files (old WALs, compacted SSTs) in the background while
            // the engine is open: a file gone since the listing holds nothing any more.
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => panic!("reading {}: {error}", path.display()),
            };
            if bytes.windows(needle.len()).any(|window| window == needle) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// Token vectors whose codes spell `marker` (so a grep of the files finds them).
fn marked_token_vectors(engine: &Engine, id: MemoryId, marker: &str) {
    let vectors = TokenVectors {
        dimension: marker.len(),
        codes: marker.bytes().map(|byte| byte as i8).collect(),
        scales: vec![0.5],
    };
    engine.put_token_vectors(&[(id, vectors)]).unwrap();
}

/// Stores a unique string twice (one copy reaches an SST through a close, the other stays in
/// the WAL and memtable), each with token vectors whose codes spell another unique string,
/// forgets both, closes, and greps the directory for both strings.
/// Returns the files holding the content, then the files holding the token vectors.
fn erase(purge: bool) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let secret = format!("zq-erasure-secret-{purge}-9f1c2e77");
    let token_secret = format!("tv-quant-codes-{purge}-4b7d");
    let mut rng = Rng(31);
    {
        let engine = open(dir.path());
        for i in 0..50 {
            engine
                .remember(input(
                    &format!("filler {i}"),
                    rng.vector(DIM),
                    Some("f"),
                    None,
                ))
                .unwrap();
        }
        let flushed = engine
            .remember(input(
                &format!("{secret} flushed"),
                rng.vector(DIM),
                Some("s"),
                None,
            ))
            .unwrap();
        marked_token_vectors(&engine, flushed.id, &format!("{token_secret} flushed"));
        engine.close().unwrap();
    }
    let engine = open(dir.path());
    let logged = engine
        .remember(input(
            &format!("{secret} in the log"),
            rng.vector(DIM),
            Some("s"),
            None,
        ))
        .unwrap();
    marked_token_vectors(&engine, logged.id, &format!("{token_secret} in the log"));
    assert!(!files_containing(dir.path(), secret.as_bytes()).is_empty());
    assert!(!files_containing(dir.path(), token_secret.as_bytes()).is_empty());
    let result = engine
        .forget(&ForgetRequest {
            purge,
            ..ForgetRequest::entity("s")
        })
        .unwrap();
    assert_eq!(result.forgotten_count, 2);
    engine.close().unwrap();
    drop(engine);
    let found = (
        files_containing(dir.path(), secret.as_bytes()),
        files_containing(dir.path(), token_secret.as_bytes()),
    );
    let reopened = open(dir.path());
    assert_eq!(reopened.health().memory_count, 50);
    found
}

#[test]
fn purge_leaves_no_byte_of_the_erased_content_on_disk() {
    assert_eq!(erase(true), (Vec::new(), Vec::new()));
}

#[test]
fn without_purge_the_old_sst_still_holds_them() {
    let (content, token_vectors) = erase(false);
    assert!(!content.is_empty(), "the check must be able to fail");
    assert!(!token_vectors.is_empty(), "the check must be able to fail");
}
