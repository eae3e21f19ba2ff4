//! The on-disk checkpoint of the vector index: the graph's lists (`graph.bin`), its vectors
//! (`vectors.bin`, in slot order) and the slot map, in one directory that is replaced
//! atomically (write `<dir>.tmp`, fsync, rename).
//! A crash between the two renames leaves `<dir>.old`, which [`load`] falls back to.
//!
//! A manifest, written last, holds each file's length and CRC-32 and a CRC-32 of itself; its
//! presence marks a complete checkpoint. [`load`] checks every file against it before it
//! parses a byte, so a truncated or bit-flipped checkpoint is never trusted: it is a
//! [`HebbsError::Corruption`], and the index is rebuilt from the store.
//!
//! Numbers are stored little-endian; vectors as the rows the index holds in memory, raw `f32`
//! or the int8 format's codes and scale (see `format.rs`), so an open never re-quantises
//! (the index refuses to build on a big-endian target rather than read them wrong).
//! `graph.bin` version 2 names the format; version 1, written before int8 existed, is `f32`.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Read, Write as _};
use std::path::{Path, PathBuf};

use super::any_graph::{each, AnyGraph};
use super::format::{Codec, Int8, VectorFormat, F32};
use super::graph::HnswGraph;
use super::hnsw_index::VectorIndex;
use super::links::{Links, RawLinks};
use super::params::HnswParams;
use super::slots::SlotMap;
use super::vectors::VectorStore;
use crate::codec::Reader;
use crate::error::{HebbsError, Result};

#[cfg(target_endian = "big")]
compile_error!("the vector checkpoint stores raw little-endian f32 vectors");

/// The graph's lists.
const GRAPH_FILE: &str = "graph.bin";
const GRAPH_MAGIC: &[u8; 8] = b"HEBBSHNW";
const GRAPH_VERSION: u32 = 2;
/// The version before the format byte: always `f32` rows.
const GRAPH_VERSION_F32_ONLY: u32 = 1;
/// Entry slot written when the graph has no entry (it is empty).
const NO_ENTRY: u32 = u32::MAX;
/// The rows of the vectors, in slot order.
const VECTORS_FILE: &str = "vectors.bin";
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

/// Writes the graph's lists to `path`.
fn write_graph<C: Codec>(path: &Path, graph: &HnswGraph<C>, slots: usize) -> Result<()> {
    let raw = graph.links().to_raw(slots);
    let (entry, top) = graph.entry().unwrap_or((NO_ENTRY, 0));
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = BufWriter::new(file);
    let mut header = Vec::with_capacity(48);
    header.extend_from_slice(GRAPH_MAGIC);
    header.extend_from_slice(&GRAPH_VERSION.to_le_bytes());
    header.push(C::FORMAT.code());
    header.extend_from_slice(&(graph.dimension() as u64).to_le_bytes());
    header.extend_from_slice(&(graph.m() as u64).to_le_bytes());
    header.extend_from_slice(&(slots as u64).to_le_bytes());
    header.extend_from_slice(&entry.to_le_bytes());
    header.push(top);
    out.write_all(&header)
        .and_then(|()| out.write_all(&raw.levels))
        .and_then(|()| out.write_all(bytemuck::cast_slice(&raw.layer0)))
        .and_then(|()| out.write_all(bytemuck::cast_slice(&raw.upper)))
        .and_then(|()| out.flush())
        .map_err(io_err(path))
}

/// Writes the vectors of slots `0..slots` to `path`, chunk by chunk.
fn write_vectors<C: Codec>(path: &Path, graph: &HnswGraph<C>) -> Result<()> {
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = BufWriter::new(file);
    graph
        .vectors()
        .for_each_chunk(|values| out.write_all(bytemuck::cast_slice(values)))
        .and_then(|()| out.flush())
        .map_err(io_err(path))
}

pub(super) fn write(dir: &Path, graph: &AnyGraph, slots: &SlotMap, covered_seq: u64) -> Result<()> {
    each!(graph, graph => write_in(dir, graph, slots, covered_seq))
}

fn write_in<C: Codec>(
    dir: &Path,
    graph: &HnswGraph<C>,
    slots: &SlotMap,
    covered_seq: u64,
) -> Result<()> {
    let dimension = graph.dimension();
    let tmp = sibling(dir, ".tmp");
    let old = sibling(dir, ".old");
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
    }
    fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    write_graph(&tmp.join(GRAPH_FILE), graph, slots.len())?;
    write_vectors(&tmp.join(VECTORS_FILE), graph)?;
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

/// What `graph.bin` holds: the lists, the entry node and its level, `M` and the format.
struct StoredGraph {
    links: Links,
    entry: Option<(u32, u8)>,
    m: usize,
    format: VectorFormat,
}

/// Parses `graph.bin`, for `dimension`-d vectors of `slots` slots.
fn read_graph(path: &Path, dimension: usize, slots: usize) -> Result<StoredGraph> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    let bad = |reason: &str| HebbsError::corrupt("vector index checkpoint", reason);
    let mut reader = Reader::new(&bytes, "vector index checkpoint");
    if reader.take(8)? != GRAPH_MAGIC {
        return Err(bad("bad magic in graph.bin"));
    }
    let format = match reader.u32()? {
        GRAPH_VERSION_F32_ONLY => VectorFormat::F32,
        GRAPH_VERSION => VectorFormat::from_code(reader.u8()?)
            .ok_or_else(|| bad("unknown vector format in graph.bin"))?,
        _ => return Err(bad("bad version in graph.bin")),
    };
    let stored_dimension = reader.u64()? as usize;
    let m = reader.u64()? as usize;
    let stored_slots = reader.u64()? as usize;
    if stored_dimension != dimension || stored_slots != slots || !(2..=255).contains(&m) {
        return Err(bad("graph.bin does not match the slot map"));
    }
    let entry = reader.u32()?;
    let top = reader.u8()?;
    let levels = reader.take(slots)?.to_vec();
    let upper_rows: usize = levels.iter().map(|&level| usize::from(level)).sum();
    let numbers = |count: usize, reader: &mut Reader<'_>| -> Result<Vec<u32>> {
        let raw = reader.take(count.checked_mul(4).ok_or_else(|| bad("too many lists"))?)?;
        Ok(raw
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    };
    let layer0 = numbers(slots * (1 + 2 * m), &mut reader)?;
    let upper = numbers(upper_rows * (1 + m), &mut reader)?;
    if !reader.is_done() {
        return Err(bad("trailing bytes in graph.bin"));
    }
    let raw = RawLinks {
        levels,
        layer0,
        upper,
    };
    let links = Links::from_raw(m, &raw).ok_or_else(|| bad("inconsistent lists in graph.bin"))?;
    let entry = match entry {
        NO_ENTRY if slots == 0 => None,
        slot if (slot as usize) < slots && raw.levels[slot as usize] == top => Some((slot, top)),
        _ => return Err(bad("bad entry point in graph.bin")),
    };
    Ok(StoredGraph {
        links,
        entry,
        m,
        format,
    })
}

pub(super) fn load(
    dir: &Path,
    params: HnswParams,
    wanted: Option<VectorFormat>,
) -> Result<Option<(VectorIndex, u64)>> {
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
    let stored = read_graph(&chosen.join(GRAPH_FILE), dimension, slots.len())?;
    if stored.m != params.m || wanted.is_some_and(|format| format != stored.format) {
        // Built with another M or format: rebuilding with the configured one is the caller's
        // choice.
        return Ok(None);
    }
    let rows = Rows {
        path: chosen.join(VECTORS_FILE),
        dimension,
        slots: slots.len(),
        params,
    };
    let graph = match stored.format {
        VectorFormat::F32 => AnyGraph::F32(rows.read::<F32>(stored)?),
        VectorFormat::Int8 => AnyGraph::Int8(rows.read::<Int8>(stored)?),
    };
    Ok(Some((
        VectorIndex::from_parts(graph, slots, params, dimension),
        covered_seq,
    )))
}

/// Where the checkpoint's rows are, and what they are rows of.
struct Rows {
    path: PathBuf,
    dimension: usize,
    slots: usize,
    params: HnswParams,
}

impl Rows {
    /// The graph of format `C` from the lists in `stored` and these rows.
    fn read<C: Codec>(&self, stored: StoredGraph) -> Result<HnswGraph<C>> {
        let path = &self.path;
        let file = fs::File::open(path).map_err(io_err(path))?;
        let stride = C::stride(self.dimension);
        let vectors = VectorStore::read_from(stride, self.slots, std::io::BufReader::new(file))
            .map_err(|error| {
                HebbsError::corrupt("vector index checkpoint", format!("vectors.bin: {error}"))
            })?;
        Ok(HnswGraph::from_parts(
            self.dimension,
            vectors,
            stored.links,
            stored.entry,
            stored.m,
            self.params.ef_construction,
        ))
    }
}
