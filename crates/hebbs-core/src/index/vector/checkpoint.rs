//! The on-disk checkpoint of the vector index: the `hnsw_rs` dump (graph + data files) and the
//! slot map, in one directory that is replaced atomically (write `<dir>.tmp`, fsync, rename).
//! A crash between the two renames leaves `<dir>.old`, which [`load`] falls back to.
//!
//! A manifest, written last, holds each file's length and CRC-32 and a CRC-32 of itself; its
//! presence marks a complete checkpoint. [`load`] checks every file against it before
//! `hnsw_rs` reads a byte, so a truncated or bit-flipped checkpoint is never trusted: it is a
//! [`HebbsError::Corruption`], and the index is rebuilt from the store.

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anndists::dist::DistDot;
use hnsw_rs::api::AnnT;
use hnsw_rs::hnsw::Hnsw;
use hnsw_rs::hnswio::HnswIo;

use super::hnsw_index::{empty_hnsw, VectorIndex};
use super::params::HnswParams;
use super::slots::SlotMap;
use crate::error::{HebbsError, Result};

/// Base name of the `hnsw_rs` dump files inside the checkpoint directory.
const DUMP_BASENAME: &str = "index";
/// The slot map file.
const SLOTS_FILE: &str = "slots.bin";
/// The manifest file; written last, so its presence marks a complete checkpoint.
const MANIFEST_FILE: &str = "manifest.txt";
/// The first word of the manifest's last line, which carries the CRC-32 of the lines before it.
const MANIFEST_END: &str = "end";
/// Bytes read at a time while checksumming.
const CHECKSUM_CHUNK: usize = 1 << 20;

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    dir.with_file_name(name)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> HebbsError + '_ {
    move |source| HebbsError::io(path, source)
}

pub(super) fn write(
    dir: &Path,
    hnsw: &Hnsw<'static, f32, DistDot>,
    slots: &SlotMap,
    covered_seq: u64,
    dimension: usize,
) -> Result<()> {
    let tmp = sibling(dir, ".tmp");
    let old = sibling(dir, ".old");
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
    }
    fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    if hnsw.get_nb_point() > 0 {
        hnsw.file_dump(&tmp, DUMP_BASENAME)
            .map_err(|e| HebbsError::Index {
                reason: format!("dump failed: {e}"),
            })?;
    }
    let slots_path = tmp.join(SLOTS_FILE);
    fs::write(&slots_path, slots.encode(covered_seq, dimension)).map_err(io_err(&slots_path))?;
    let manifest_path = tmp.join(MANIFEST_FILE);
    fs::write(&manifest_path, manifest(&tmp)?).map_err(io_err(&manifest_path))?;
    for entry in fs::read_dir(&tmp).map_err(io_err(&tmp))? {
        let path = entry.map_err(io_err(&tmp))?.path();
        fs::File::open(&path)
            .and_then(|file| file.sync_all())
            .map_err(io_err(&path))?;
    }
    if dir.exists() {
        if old.exists() {
            fs::remove_dir_all(&old).map_err(io_err(&old))?;
        }
        fs::rename(dir, &old).map_err(io_err(dir))?;
    }
    fs::rename(&tmp, dir).map_err(io_err(&tmp))?;
    if let Some(parent) = dir.parent() {
        fs::File::open(parent)
            .and_then(|file| file.sync_all())
            .map_err(io_err(parent))?;
    }
    if old.exists() {
        fs::remove_dir_all(&old).map_err(io_err(&old))?;
    }
    Ok(())
}

/// The length and CRC-32 of `path`'s bytes.
fn checksum(path: &Path) -> Result<(u64, u32)> {
    let mut file = fs::File::open(path).map_err(io_err(path))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; CHECKSUM_CHUNK];
    let mut length = 0u64;
    loop {
        let read = file.read(&mut buffer).map_err(io_err(path))?;
        if read == 0 {
            return Ok((length, hasher.finalize()));
        }
        length += read as u64;
        hasher.update(&buffer[..read]);
    }
}

/// The manifest of the files in `dir`: one `crc length name` line each, by name, then
/// `end crc` over those lines.
fn manifest(dir: &Path) -> Result<String> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    let mut text = String::new();
    for name in names.iter().filter(|name| name.as_str() != MANIFEST_FILE) {
        let (length, crc) = checksum(&dir.join(name))?;
        let _ = writeln!(text, "{crc:08x} {length} {name}");
    }
    let own = crc32fast::hash(text.as_bytes());
    let _ = writeln!(text, "{MANIFEST_END} {own:08x}");
    Ok(text)
}

/// Checks every file that the manifest of `dir` lists against its length and CRC-32.
fn verify(dir: &Path) -> Result<()> {
    let path = dir.join(MANIFEST_FILE);
    let text = fs::read_to_string(&path).map_err(io_err(&path))?;
    let bad = |reason: String| HebbsError::corrupt("vector index checkpoint", reason);
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    let (body, last) = text.split_at(body_end);
    let own = last
        .trim_end()
        .strip_prefix(MANIFEST_END)
        .and_then(|crc| u32::from_str_radix(crc.trim(), 16).ok())
        .ok_or_else(|| bad("the manifest has no end line".into()))?;
    if crc32fast::hash(body.as_bytes()) != own {
        return Err(bad("the manifest fails its checksum".into()));
    }
    for line in body.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(crc), Some(length), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(format!("malformed manifest line {line:?}")));
        };
        let expected = (
            length
                .parse::<u64>()
                .map_err(|_| bad(format!("bad length in {line:?}")))?,
            u32::from_str_radix(crc, 16).map_err(|_| bad(format!("bad crc in {line:?}")))?,
        );
        if name.contains('/') || checksum(&dir.join(name))? != expected {
            return Err(bad(format!("{name} does not match the manifest")));
        }
    }
    Ok(())
}

pub(super) fn load(dir: &Path, params: HnswParams) -> Result<Option<(VectorIndex, u64)>> {
    let chosen = [dir.to_path_buf(), sibling(dir, ".old")]
        .into_iter()
        .find(|candidate| candidate.join(MANIFEST_FILE).is_file());
    let Some(chosen) = chosen else {
        return Ok(None);
    };
    verify(&chosen)?;
    let slots_path = chosen.join(SLOTS_FILE);
    let bytes = fs::read(&slots_path).map_err(io_err(&slots_path))?;
    let (slots, covered_seq, dimension) = SlotMap::decode(&bytes)?;
    let hnsw = if slots.len() == 0 {
        empty_hnsw(params, 0)
    } else {
        // `load_hnsw` ties the graph's lifetime to the loader. With the default (non-mmap)
        // options the loader only holds file names and the graph owns its data, so the loader is
        // leaked to give the graph a 'static lifetime; it is a few hundred bytes per open.
        let loader: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(&chosen, DUMP_BASENAME)));
        loader
            .load_hnsw::<f32, DistDot>()
            .map_err(|e| HebbsError::Index {
                reason: format!("load failed: {e}"),
            })?
    };
    if hnsw.get_nb_point() != slots.len() {
        return Err(HebbsError::corrupt(
            "index checkpoint",
            format!("{} points but {} slots", hnsw.get_nb_point(), slots.len()),
        ));
    }
    Ok(Some((
        VectorIndex::from_parts(hnsw, slots, params, dimension),
        covered_seq,
    )))
}
