//! What a tiny store costs on disk: after close, no RocksDB `LOG`, `OPTIONS` or `IDENTITY`
//! file and a small fixed overhead beyond its data; while open, no write-ahead log preallocated
//! beyond what was written.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::common::{input, normalized, open, Rng};

const DIMENSION: usize = 384;
const MEMORIES: usize = 20;
/// The goal of docs/architecture.md ("Store options"): the bytes a closed tiny store's files
/// hold beyond its data.
const FIXED_OVERHEAD_BUDGET: u64 = 64 * 1024;
/// The same on a file system of 4 KB blocks, where each of the store's two dozen small files
/// takes a whole block (measured 76 KB).
const ALLOCATED_OVERHEAD_BUDGET: u64 = 96 * 1024;
/// A file system block: the most a file may hold allocated beyond its length.
const BLOCK: u64 = 4096;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().blocks() * 512
}

fn tiny_store(dir: &Path) -> hebbs_core::Engine {
    let engine = open(dir);
    let mut rng = Rng(29);
    let inputs = (0..MEMORIES)
        .map(|i| {
            let content = format!("note {i}: the customer asked about the invoice");
            input(&content, normalized(rng.vector(DIMENSION)), None, None)
        })
        .collect();
    engine.remember_many(inputs).unwrap();
    engine
}

#[test]
fn a_closed_tiny_store_keeps_a_small_fixed_overhead_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let engine = tiny_store(dir.path());
    engine.close().unwrap();
    drop(engine);
    let files = files(dir.path());
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for kept in ["LOG", "OPTIONS-", "IDENTITY"] {
        assert!(
            !names.iter().any(|name| name.starts_with(kept)),
            "{kept}* kept: {names:?}"
        );
    }
    // The data: each vector twice (its table and the vector index checkpoint) and the texts.
    let data = (2 * MEMORIES * DIMENSION * 4) as u64;
    let written: u64 = files
        .iter()
        .map(|path| std::fs::metadata(path).unwrap().len())
        .sum();
    let total: u64 = files.iter().map(|path| allocated(path)).sum();
    assert!(
        written <= data + FIXED_OVERHEAD_BUDGET && total <= data + ALLOCATED_OVERHEAD_BUDGET,
        "{written} bytes written, {total} allocated for {data} bytes of vectors: {names:?}"
    );
}

#[test]
fn an_open_store_preallocates_no_write_ahead_log() {
    let dir = tempfile::tempdir().unwrap();
    let engine = tiny_store(dir.path());
    for path in files(&dir.path().join("store")) {
        if path.extension().is_some_and(|ext| ext == "log") {
            let length = std::fs::metadata(&path).unwrap().len();
            assert!(
                allocated(&path) <= length.div_ceil(BLOCK) * BLOCK + BLOCK,
                "{} holds {} bytes allocated for {length} written",
                path.display(),
                allocated(&path)
            );
        }
    }
    engine.close().unwrap();
}
