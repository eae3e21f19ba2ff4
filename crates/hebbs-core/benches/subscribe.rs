//! Subscription benchmark (prints one table; run with `cargo bench -p hebbs-core --bench
//! subscribe [-- N]`). On a store of N (default `DEFAULT_PREFILL`) 384-d memories it measures:
//!
//! - push latency: from the start of a `remember` call to the moment a consumer thread blocked
//!   in `recv` holds the push (p50/p99), and from the push's production (`push_timestamp_us`)
//!   to its delivery, i.e. the consumer's wake-up;
//! - what subscriptions add to `remember`: per-call latency with no subscriber, with one matching
//!   subscriber whose consumer drains it, and with `IDLE_SUBSCRIBERS` subscribers that match
//!   nothing (a dot product each), measured in interleaved rounds in the same run, with the
//!   ratios of each p50 and mean to the no-subscriber ones.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hebbs_core::engine::now_us;
use hebbs_core::subscribe::SubscribeRequest;
use hebbs_core::{Engine, EngineConfig, RememberInput, Subscription};

const DIM: usize = 384;
/// Memories in the store before measuring; a number among the arguments overrides it
/// (`cargo bench -p hebbs-core --bench subscribe -- 100000`).
const DEFAULT_PREFILL: usize = 5_000;
/// Memories per `remember_many` call while filling the store.
const PREFILL_BATCH: usize = 2_000;
const LATENCY_SAMPLES: usize = 2_000;
/// Pause between remembers in the latency run: an agent's cadence, so each push is timed on its
/// own rather than behind a queue of earlier ones.
const LATENCY_PACE: Duration = Duration::from_micros(500);
const ROUNDS: usize = 10;
const CALLS_PER_ROUND: usize = 200;
const IDLE_SUBSCRIBERS: usize = 100;

struct Vectors(u64);

impl Vectors {
    fn next(&mut self) -> Vec<f32> {
        let mut v: Vec<f32> = (0..DIM)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                (self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }

    fn inputs(&mut self, count: usize) -> Vec<RememberInput> {
        (0..count)
            .map(|i| RememberInput::new(format!("memory {i}"), self.next()))
            .collect()
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Prints one row and returns (p50, mean); `baseline` is the no-subscriber (p50, mean).
fn row(name: &str, samples: &mut [f64], baseline: Option<(f64, f64)>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let p50 = percentile(samples, 0.5);
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let ratios = baseline.map_or_else(String::new, |(base_p50, base_mean)| {
        format!("{:.2}x / {:.2}x", p50 / base_p50, mean / base_mean)
    });
    println!(
        "| {name:<44} | {p50:>8.1} | {:>8.1} | {mean:>8.1} | {ratios:>15} |",
        percentile(samples, 0.99),
    );
    (p50, mean)
}

/// Runs `body` while a thread drains `subscription`, returning what the body returns and, per
/// push, (sequence number, delivery instant, push timestamp, delivery timestamp).
fn with_consumer<T>(
    subscription: Arc<Subscription>,
    expected: usize,
    body: impl FnOnce() -> T,
) -> (T, Vec<(u64, Instant, u64, u64)>) {
    let consumer = thread::spawn(move || {
        let mut seen = Vec::with_capacity(expected);
        while seen.len() < expected {
            let Some(push) = subscription.recv() else {
                break;
            };
            seen.push((
                push.sequence_number,
                Instant::now(),
                push.push_timestamp_us,
                now_us(),
            ));
        }
        seen
    });
    let value = body();
    (value, consumer.join().expect("consumer"))
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let mut vectors = Vectors(0x2545_F491_4F6C_DD1D);
    let prefill = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse::<usize>().ok())
        .unwrap_or(DEFAULT_PREFILL);
    let mut filled = 0;
    while filled < prefill {
        let count = PREFILL_BATCH.min(prefill - filled);
        engine
            .remember_many(vectors.inputs(count))
            .expect("prefill");
        filled += count;
    }

    let everything = |vectors: &mut Vectors| SubscribeRequest {
        confidence_threshold: 0.0,
        ..SubscribeRequest::new(vectors.next())
    };
    let subscription = Arc::new(
        engine
            .subscribe(everything(&mut vectors))
            .expect("subscribe"),
    );
    let inputs = vectors.inputs(LATENCY_SAMPLES);
    let (starts, seen) = with_consumer(Arc::clone(&subscription), LATENCY_SAMPLES, || {
        inputs
            .into_iter()
            .map(|input| {
                thread::sleep(LATENCY_PACE);
                let start = Instant::now();
                engine.remember(input).expect("remember");
                start
            })
            .collect::<Vec<_>>()
    });
    drop(subscription);
    assert_eq!(seen.len(), LATENCY_SAMPLES, "every push delivered");
    let mut end_to_end: Vec<f64> = seen
        .iter()
        .map(|(sequence, delivered, _, _)| {
            delivered
                .duration_since(starts[*sequence as usize - 1])
                .as_secs_f64()
                * 1e6
        })
        .collect();
    let mut wake_up: Vec<f64> = seen
        .iter()
        .map(|(_, _, pushed, delivered)| delivered.saturating_sub(*pushed) as f64)
        .collect();

    let mut none = Vec::new();
    let mut matching = Vec::new();
    let mut idle = Vec::new();
    for _ in 0..ROUNDS {
        let inputs = vectors.inputs(CALLS_PER_ROUND);
        none.extend(time_remembers(&engine, inputs));

        let subscription = Arc::new(
            engine
                .subscribe(everything(&mut vectors))
                .expect("subscribe"),
        );
        let inputs = vectors.inputs(CALLS_PER_ROUND);
        let (samples, _) = with_consumer(subscription, CALLS_PER_ROUND, || {
            time_remembers(&engine, inputs)
        });
        matching.extend(samples);

        let idle_subscriptions: Vec<Subscription> = (0..IDLE_SUBSCRIBERS)
            .map(|_| {
                engine
                    .subscribe(SubscribeRequest {
                        confidence_threshold: 1.0,
                        ..SubscribeRequest::new(vectors.next())
                    })
                    .expect("subscribe")
            })
            .collect();
        idle.extend(time_remembers(&engine, vectors.inputs(CALLS_PER_ROUND)));
        assert!(idle_subscriptions.iter().all(|s| s.try_recv().is_err()));
    }

    println!(
        "\nsubscribe, {prefill} memories of {DIM}-d, microseconds ({} cores)\n",
        thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "| {:<44} | {:>8} | {:>8} | {:>8} | {:>15} |",
        "measure", "p50", "p99", "mean", "ratio p50/mean"
    );
    println!(
        "|{:-<46}|{:->10}|{:->10}|{:->10}|{:->17}|",
        "", "", "", "", ""
    );
    row(
        "push latency: remember start -> delivered",
        &mut end_to_end,
        None,
    );
    row(
        "push latency: push produced -> delivered",
        &mut wake_up,
        None,
    );
    let base = row("remember, no subscriber", &mut none, None);
    row(
        "remember, 1 matching subscriber (drained)",
        &mut matching,
        Some(base),
    );
    row(
        &format!("remember, {IDLE_SUBSCRIBERS} non-matching subscribers"),
        &mut idle,
        Some(base),
    );
}

/// Per-call latency of remembering each input, in microseconds.
fn time_remembers(engine: &Engine, inputs: Vec<RememberInput>) -> Vec<f64> {
    inputs
        .into_iter()
        .map(|input| {
            let start = Instant::now();
            engine.remember(input).expect("remember");
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}
