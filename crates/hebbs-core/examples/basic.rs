//! A Rust service using hebbs-core directly: remember a few memories with their vectors, then
//! recall by similarity and by timeline. Run with `cargo run --release --example basic`.

use hebbs_core::recall::RecallRequest;
use hebbs_core::{Engine, EngineConfig, RememberInput};

/// Toy 4-d "embeddings": a real service would call its embedding model here.
const MEMORIES: [(&str, [f32; 4], u64); 4] = [
    ("Acme asked for a volume discount", [0.9, 0.1, 0.0, 0.1], 1),
    (
        "Acme's CTO approved the security review",
        [0.1, 0.9, 0.1, 0.0],
        2,
    ),
    ("Acme renewed for two years", [0.5, 0.2, 0.8, 0.0], 3),
    ("Globex reported a login bug", [0.0, 0.1, 0.1, 0.9], 4),
];

fn main() -> hebbs_core::Result<()> {
    let dir = std::env::temp_dir().join(format!("hebbs-example-{}", std::process::id()));
    let engine = Engine::open(&dir, EngineConfig::default())?;
    let day = 24 * 3600 * 1_000_000;
    let now = hebbs_core::engine::now_us();
    for (content, vector, days_ago) in MEMORIES {
        let entity = content
            .split_whitespace()
            .next()
            .map(|w| w.trim_end_matches("'s").to_lowercase());
        engine.remember(RememberInput {
            entity_id: entity,
            created_at: Some(now - days_ago * day),
            ..RememberInput::new(content, vector.to_vec())
        })?;
    }

    println!("similarity: pricing");
    let output = engine.recall(&RecallRequest::similarity(vec![1.0, 0.0, 0.1, 0.0]))?;
    for result in output.results.iter().take(2) {
        println!("  {:.3}  {}", result.score, result.memory.content);
    }

    println!("temporal: acme, newest first");
    for result in engine.recall(&RecallRequest::temporal("acme"))?.results {
        println!("  {:.3}  {}", result.score, result.memory.content);
    }
    engine.close()?;
    drop(engine);
    std::fs::remove_dir_all(&dir).map_err(|e| hebbs_core::HebbsError::io(&dir, e))
}
