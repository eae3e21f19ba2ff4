//! The on-disk checkpoint of the vector index: the graph's lists (`graph.bin`), its vectors
//! (`vectors.bin`, in slot order) and the slot map, in one directory that is replaced
//! atomically (write `<dir>.tmp`, fsync, rename).
//! A crash between the two renames leaves `<dir>.old`, which [`load`] falls back to.
//!
//! A manifest, written last, holds each file's length and CRC-32 (summed while the file is
//! written) and a CRC-32 of itself; its presence marks a complete checkpoint. [`load`] reads
//! each file once, checksumming it as it parses it straight into the index's own buffers, and
//! trusts nothing it parsed until the file's sum matches the manifest (the slot map, which sizes
//! everything else, is checked before it is parsed), so a truncated or bit-flipped checkpoint is
//! never trusted: it is a [`HebbsError::Corruption`], and the index is rebuilt from the store.
//!
//! Numbers are stored little-endian; vectors as the rows the index holds in memory, raw `f32`
//! or the int8 format's codes and scale (see `format.rs`), so an open never re-quantises
//! (the index refuses to build on a big-endian target rather than read them wrong).
//! `graph.bin` version 2 names the format; version 1, written before int8 existed, is `f32`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufReader, BufWriter, Read, Write as _};
use std::path::{Path, PathBuf};

use super::any_graph::{each, AnyGraph};
use super::format::{Codec, Int8, VectorFormat, F32};
use super::graph::HnswGraph;
use super::hnsw_index::VectorIndex;
use super::links::Links;
use super::params::HnswParams;
use super::slots::SlotMap;
use super::summed::Summed;
use super::vectors::VectorStore;
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
/// The files a checkpoint holds besides its manifest.
const FILES: [&str; 3] = [GRAPH_FILE, SLOTS_FILE, VECTORS_FILE];
/// Bytes of `graph.bin`'s header before its format byte: magic and version.
const GRAPH_HEAD: usize = 12;
/// Bytes of `graph.bin`'s header after its format byte: dimension, `M`, slots, entry, top.
const GRAPH_TAIL: usize = 29;
/// A file's length and CRC-32.
type Sum = (u64, u32);

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    dir.with_file_name(name)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> HebbsError + '_ {
    move |source| HebbsError::io(path, source)
}

/// Writes the graph's lists to `path`; returns the file's sum.
fn write_graph<C: Codec>(path: &Path, graph: &HnswGraph<C>, slots: usize) -> Result<Sum> {
    let (entry, top) = graph.entry().unwrap_or((NO_ENTRY, 0));
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = Summed::new(BufWriter::new(file));
    let mut header = Vec::with_capacity(GRAPH_HEAD + 1 + GRAPH_TAIL);
    header.extend_from_slice(GRAPH_MAGIC);
    header.extend_from_slice(&GRAPH_VERSION.to_le_bytes());
    header.push(C::FORMAT.code());
    header.extend_from_slice(&(graph.dimension() as u64).to_le_bytes());
    header.extend_from_slice(&(graph.m() as u64).to_le_bytes());
    header.extend_from_slice(&(slots as u64).to_le_bytes());
    header.extend_from_slice(&entry.to_le_bytes());
    header.push(top);
    out.write_all(&header)
        .and_then(|()| graph.links().write_to(slots, &mut out))
        .and_then(|()| out.flush())
        .map_err(io_err(path))?;
    Ok(out.sum())
}

/// Writes the vectors of slots `0..slots` to `path`, chunk by chunk; returns the file's sum.
fn write_vectors<C: Codec>(path: &Path, graph: &HnswGraph<C>) -> Result<Sum> {
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = Summed::new(BufWriter::new(file));
    graph
        .vectors()
        .for_each_chunk(|values| out.write_all(bytemuck::cast_slice(values)))
        .and_then(|()| out.flush())
        .map_err(io_err(path))?;
    Ok(out.sum())
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
    let graph_sum = write_graph(&tmp.join(GRAPH_FILE), graph, slots.len())?;
    let vectors_sum = write_vectors(&tmp.join(VECTORS_FILE), graph)?;
    let slots_path = tmp.join(SLOTS_FILE);
    let slot_bytes = slots.encode(covered_seq, dimension);
    fs::write(&slots_path, &slot_bytes).map_err(io_err(&slots_path))?;
    let slots_sum = (slot_bytes.len() as u64, crc32fast::hash(&slot_bytes));
    let manifest_path = tmp.join(MANIFEST_FILE);
    let sums = [graph_sum, slots_sum, vectors_sum];
    fs::write(&manifest_path, manifest(&sums)).map_err(io_err(&manifest_path))?;
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

/// The manifest of a checkpoint whose [`FILES`] have `sums`: one `crc length name` line each,
/// by name, then `end crc` over those lines.
fn manifest(sums: &[Sum; 3]) -> String {
    let mut text = String::new();
    for (name, (length, crc)) in FILES.iter().zip(sums) {
        let _ = writeln!(text, "{crc:08x} {length} {name}");
    }
    let own = crc32fast::hash(text.as_bytes());
    let _ = writeln!(text, "{MANIFEST_END} {own:08x}");
    text
}

fn corrupt(reason: impl Into<String>) -> HebbsError {
    HebbsError::corrupt("vector index checkpoint", reason.into())
}

/// The sum the manifest of `dir` gives each of [`FILES`]; corrupt unless it is intact and
/// lists exactly those.
fn read_manifest(dir: &Path) -> Result<BTreeMap<String, Sum>> {
    let path = dir.join(MANIFEST_FILE);
    let text = fs::read_to_string(&path).map_err(io_err(&path))?;
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    let (body, last) = text.split_at(body_end);
    let own = last
        .trim_end()
        .strip_prefix(MANIFEST_END)
        .and_then(|crc| u32::from_str_radix(crc.trim(), 16).ok())
        .ok_or_else(|| corrupt("the manifest has no end line"))?;
    if crc32fast::hash(body.as_bytes()) != own {
        return Err(corrupt("the manifest fails its checksum"));
    }
    let mut sums = BTreeMap::new();
    for line in body.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(crc), Some(length), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(corrupt(format!("malformed manifest line {line:?}")));
        };
        let length = length
            .parse::<u64>()
            .map_err(|_| corrupt(format!("bad length in {line:?}")))?;
        let crc =
            u32::from_str_radix(crc, 16).map_err(|_| corrupt(format!("bad crc in {line:?}")))?;
        sums.insert(name.to_owned(), (length, crc));
    }
    if !sums.keys().map(String::as_str).eq(FILES) {
        return Err(corrupt("the manifest does not list the checkpoint's files"));
    }
    Ok(sums)
}

/// Checks that `sum`, of all of `name`'s bytes, is what the manifest's `sums` say.
fn check_sum(sum: Sum, name: &str, sums: &BTreeMap<String, Sum>) -> Result<()> {
    if Some(&sum) == sums.get(name) {
        Ok(())
    } else {
        Err(corrupt(format!("{name} does not match the manifest")))
    }
}

/// What `graph.bin` holds: the lists, the entry node and its level, `M` and the format.
struct StoredGraph {
    links: Links,
    entry: Option<(u32, u8)>,
    m: usize,
}

/// The little-endian number in `bytes` at `at`, `N` bytes wide.
fn le<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[at..at + N]);
    out
}

/// Reads `graph.bin` from `source` for `dimension`-d vectors of `slots` slots, all of it
/// (trailing bytes are corrupt); `None` once its header shows another `M` than `params`' or
/// another format than `wanted`.
fn read_graph(
    source: &mut impl Read,
    dimension: usize,
    slots: usize,
    params: HnswParams,
    wanted: Option<VectorFormat>,
) -> Result<Option<(StoredGraph, VectorFormat)>> {
    let short = |_| corrupt("graph.bin is shorter than its header");
    let mut head = [0u8; GRAPH_HEAD];
    source.read_exact(&mut head).map_err(short)?;
    if &head[..8] != GRAPH_MAGIC {
        return Err(corrupt("bad magic in graph.bin"));
    }
    let format = match u32::from_le_bytes(le(&head, 8)) {
        GRAPH_VERSION_F32_ONLY => VectorFormat::F32,
        GRAPH_VERSION => {
            let mut code = [0u8; 1];
            source.read_exact(&mut code).map_err(short)?;
            VectorFormat::from_code(code[0])
                .ok_or_else(|| corrupt("unknown vector format in graph.bin"))?
        }
        _ => return Err(corrupt("bad version in graph.bin")),
    };
    let mut tail = [0u8; GRAPH_TAIL];
    source.read_exact(&mut tail).map_err(short)?;
    let stored_dimension = u64::from_le_bytes(le(&tail, 0));
    let m = u64::from_le_bytes(le(&tail, 8));
    let stored_slots = u64::from_le_bytes(le(&tail, 16));
    let entry = u32::from_le_bytes(le(&tail, 24));
    let top = tail[28];
    if stored_dimension != dimension as u64 || stored_slots != slots as u64 {
        return Err(corrupt("graph.bin does not match the slot map"));
    }
    if m != params.m as u64 || wanted.is_some_and(|wanted| wanted != format) {
        // Built with another M or format: rebuilding with the configured one is the caller's
        // choice.
        return Ok(None);
    }
    let m = params.m;
    let links = Links::read_from(m, slots, source)
        .map_err(|error| corrupt(format!("graph.bin: {error}")))?;
    if source
        .read(&mut [0u8; 1])
        .map_err(|error| corrupt(error.to_string()))?
        != 0
    {
        return Err(corrupt("trailing bytes in graph.bin"));
    }
    let entry = match entry {
        NO_ENTRY if slots == 0 => None,
        slot if (slot as usize) < slots && links.level(slot) == top => Some((slot, top)),
        _ => return Err(corrupt("bad entry point in graph.bin")),
    };
    Ok(Some((StoredGraph { links, entry, m }, format)))
}

/// Opens `path` to be read through a checksum.
fn open_summed(path: &Path) -> Result<Summed<BufReader<fs::File>>> {
    let file = fs::File::open(path).map_err(io_err(path))?;
    Ok(Summed::new(BufReader::new(file)))
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
    let sums = read_manifest(&chosen)?;
    let slots_path = chosen.join(SLOTS_FILE);
    let bytes = fs::read(&slots_path).map_err(io_err(&slots_path))?;
    check_sum(
        (bytes.len() as u64, crc32fast::hash(&bytes)),
        SLOTS_FILE,
        &sums,
    )?;
    let (slots, covered_seq, dimension) = SlotMap::decode(&bytes)?;
    let mut graph_file = open_summed(&chosen.join(GRAPH_FILE))?;
    let Some((stored, format)) =
        read_graph(&mut graph_file, dimension, slots.len(), params, wanted)?
    else {
        return Ok(None);
    };
    check_sum(graph_file.sum(), GRAPH_FILE, &sums)?;
    let mut vectors_file = open_summed(&chosen.join(VECTORS_FILE))?;
    let rows = Rows {
        dimension,
        slots: slots.len(),
        params,
    };
    let graph = match format {
        VectorFormat::F32 => AnyGraph::F32(rows.read::<F32>(stored, &mut vectors_file)?),
        VectorFormat::Int8 => AnyGraph::Int8(rows.read::<Int8>(stored, &mut vectors_file)?),
    };
    check_sum(vectors_file.sum(), VECTORS_FILE, &sums)?;
    Ok(Some((
        VectorIndex::from_parts(graph, slots, params, dimension),
        covered_seq,
    )))
}

/// What the checkpoint's rows are rows of.
struct Rows {
    dimension: usize,
    slots: usize,
    params: HnswParams,
}

impl Rows {
    /// The graph of format `C` from the lists in `stored` and the rows in `source`.
    fn read<C: Codec>(&self, stored: StoredGraph, source: &mut impl Read) -> Result<HnswGraph<C>> {
        let stride = C::stride(self.dimension);
        let vectors = VectorStore::read_from(stride, self.slots, source)
            .map_err(|error| corrupt(format!("vectors.bin: {error}")))?;
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
