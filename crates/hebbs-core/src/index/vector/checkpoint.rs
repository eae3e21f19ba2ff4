//! The on-disk checkpoint of the vector index: the `hnsw_rs` dump (graph + data files) and the
//! slot map, in one directory that is replaced atomically (write `<dir>.tmp`, fsync, rename).
//! A crash between the two renames leaves `<dir>.old`, which [`load`] falls back to.

use std::fs;
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
/// The slot map file; written last, so its presence marks a complete checkpoint.
const SLOTS_FILE: &str = "slots.bin";

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

pub(super) fn load(dir: &Path, params: HnswParams) -> Result<Option<(VectorIndex, u64)>> {
    let chosen = [dir.to_path_buf(), sibling(dir, ".old")]
        .into_iter()
        .find(|candidate| candidate.join(SLOTS_FILE).is_file());
    let Some(chosen) = chosen else {
        return Ok(None);
    };
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
