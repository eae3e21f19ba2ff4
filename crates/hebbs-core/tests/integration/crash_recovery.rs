//! Crash recovery: a child process remembers in a loop (checkpointing often) and is killed with
//! SIGKILL mid-write, twice. Every memory it acknowledged must be present after reopen and
//! findable through the vector index and the full-text index.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::common::{input, Rng};
use hebbs_core::recall::{RecallRequest, Strategy};
use hebbs_core::{Engine, EngineConfig, MemoryId};

const DIM: usize = 32;
const ACKS_BEFORE_KILL: usize = 600;
const DIR_VAR: &str = "HEBBS_CRASH_DIR";
const SEED_VAR: &str = "HEBBS_CRASH_SEED";

#[test]
#[ignore = "runs as the child process of sigkill_mid_write_loop_loses_nothing"]
fn crash_child() {
    let (Ok(dir), Ok(seed)) = (std::env::var(DIR_VAR), std::env::var(SEED_VAR)) else {
        return;
    };
    let config = EngineConfig {
        checkpoint_interval: 97,
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir, config).unwrap();
    let mut rng = Rng(seed.parse().unwrap());
    let mut out = std::io::stdout().lock();
    for i in 0u64.. {
        let memory = engine
            .remember(input(
                &format!("crash {seed} {i} token{seed}x{i}"),
                rng.vector(DIM),
                Some("e"),
                None,
            ))
            .unwrap();
        writeln!(out, "ACK {} {}", memory.id.to_hex(), memory.content).unwrap();
        out.flush().unwrap();
    }
}

fn run_and_kill(dir: &std::path::Path, seed: u64) -> Vec<(MemoryId, String)> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "crash_recovery::crash_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DIR_VAR, dir)
        .env(SEED_VAR, seed.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut acked = Vec::new();
    let reader = BufReader::new(child.stdout.take().unwrap());
    for line in reader.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("ACK ") {
            let (hex, content) = rest.split_once(' ').unwrap();
            acked.push((hex.parse().unwrap(), content.to_owned()));
            if acked.len() == ACKS_BEFORE_KILL {
                child.kill().unwrap();
                break;
            }
        }
    }
    child.wait().unwrap();
    assert_eq!(acked.len(), ACKS_BEFORE_KILL, "the child stopped early");
    acked
}

#[test]
fn sigkill_mid_write_loop_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut acked = Vec::new();
    for seed in 1..=2 {
        acked.extend(run_and_kill(dir.path(), seed));
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        assert!(engine.health().memory_count >= acked.len() as u64);
        for (id, content) in &acked {
            let memory = engine.get(id, true).unwrap();
            assert_eq!(&memory.content, content);
            let mut request = RecallRequest::similarity(memory.embedding.unwrap());
            request.top_k = 1;
            let top = engine.recall(&request).unwrap();
            assert_eq!(
                top.results[0].memory.id, *id,
                "{content} is stored but not indexed"
            );
            let token = content.rsplit(' ').next().unwrap();
            let mut keyword =
                RecallRequest::similarity(Vec::new()).with_strategies(&[Strategy::Keyword]);
            keyword.cue_vector = None;
            keyword.cue_text = Some(token.to_owned());
            let found = engine.recall(&keyword).unwrap();
            assert_eq!(
                found.results.first().map(|r| r.memory.id),
                Some(*id),
                "{content} is stored but not in the full-text index"
            );
        }
    }
}
