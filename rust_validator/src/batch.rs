//! Parallel batch checks (rayon). Callers release the GIL around these.
//!
//! [`pipeline`] is what the Python binding runs: the documents are scanned in chunks by rayon
//! helpers *and* the calling thread, while the calling thread turns each finished chunk, in
//! order, into its results (Python objects, under the GIL). So the serial part (creating one
//! result object per document) overlaps the scan of later chunks instead of following it.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::contract::Contract;
use crate::error::InputError;
use crate::observation::Observation;

/// Below this many bytes in total a batch runs on the calling thread: waking rayon workers costs
/// more than checking a few small documents (measured: 8 × 192 B took 7.7 µs/doc in parallel
/// against 2.8 µs/doc sequentially on the 2-core VM).
pub const PARALLEL_MIN_BYTES: usize = 32 * 1024;

/// Bytes of documents per rayon task (small documents are grouped).
pub const TASK_BYTES: usize = 16 * 1024;

/// Bytes of documents per chunk of a [`pipeline`]: small enough that the calling thread gets the
/// first chunk to turn into results early and that the last chunk is a short wait, large enough
/// that the per-chunk hand-over (a lock, a GIL re-acquire in the binding) is noise.
pub const CHUNK_BYTES: usize = 8 * 1024;

/// How to split a batch of `n` documents of `total_bytes`: `None` = run it on the calling thread,
/// `Some(k)` = in parallel with at least `k` documents per rayon task.
pub fn grouping(n: usize, total_bytes: usize) -> Option<usize> {
    if n < 2 || total_bytes < PARALLEL_MIN_BYTES {
        return None;
    }
    let avg = (total_bytes / n).max(1);
    Some((TASK_BYTES / avg).clamp(1, n))
}

/// Documents per chunk of a [`pipeline`] over `n` documents of `total_bytes`, or `None` when the
/// batch is too small to be worth a second thread (run it on the calling thread).
pub fn chunking(n: usize, total_bytes: usize) -> Option<usize> {
    if n < 2 || total_bytes < PARALLEL_MIN_BYTES || rayon::current_num_threads() < 2 {
        return None;
    }
    let avg = (total_bytes / n).max(1);
    Some((CHUNK_BYTES / avg).clamp(1, n))
}

/// How long the calling thread waits for a helper's chunk before it scans that chunk itself, when
/// it has not timed a chunk of its own yet.
const PATIENCE: Duration = Duration::from_micros(50);

/// Scan items `0..n` in chunks of `chunk` with `scan`, on `helpers` rayon jobs and the calling
/// thread, and hand every chunk's results to `consume(start, results)` on the calling thread, in
/// order of `start`. The calling thread scans a chunk itself whenever the next one to consume is
/// not ready yet (so it never idles while work is left). When every chunk is claimed and the
/// next one is still being scanned by a helper, it waits about as long as one chunk takes it,
/// then scans that chunk itself (the helper may be descheduled on a busy machine; its late
/// result is dropped) — so a batch is never slower than the calling thread alone by more than
/// that wait per stalled chunk. `own` runs each of the calling thread's own chunk scans (the
/// binding releases the GIL there for large documents; `|f| f()` otherwise). Helpers never wait
/// for the calling thread. An error from `consume` stops the claiming of new chunks and is
/// returned once the chunks in flight are done. A panic in `scan` is resumed on the caller.
pub fn pipeline<T, E, S, C, O>(n: usize, chunk: usize, helpers: usize, scan: S, mut consume: C, mut own: O)
    -> Result<(), E>
where
    T: Send,
    S: Fn(usize) -> T + Sync,
    C: FnMut(usize, Vec<T>) -> Result<(), E>,
    O: FnMut(&mut (dyn FnMut() + Send)),
{
    let chunk = chunk.max(1);
    let m = n.div_ceil(chunk);
    let slots: Vec<Mutex<Option<Vec<T>>>> = (0..m).map(|_| Mutex::new(None)).collect();
    let claimed = AtomicUsize::new(0);
    let run = |j: usize| -> Vec<T> { (j * chunk..((j + 1) * chunk).min(n)).map(&scan).collect() };
    // Claim the next unclaimed chunk, scan it and store its results; false when none is left.
    let work = || -> bool {
        let j = claimed.fetch_add(1, Ordering::Relaxed);
        if j >= m {
            return false;
        }
        let out = run(j);
        *slots[j].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
        true
    };
    let take = |j: usize| slots[j].lock().unwrap_or_else(|e| e.into_inner()).take();
    let wait = |j: usize, patience: Duration| -> Option<Vec<T>> {
        let t0 = Instant::now();
        for spins in 0u32.. {
            if let Some(out) = take(j) {
                return Some(out);
            }
            if t0.elapsed() >= patience {
                return None;
            }
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        None
    };
    rayon::in_place_scope(|s| {
        for _ in 0..helpers.min(m.saturating_sub(1)) {
            s.spawn(|_| while work() {});
        }
        let (mut own_time, mut own_chunks) = (Duration::ZERO, 0u32);
        let mut next = 0;
        while next < m {
            let out = match take(next) {
                Some(out) => out,
                None => {
                    let t0 = Instant::now();
                    let mut more = false;
                    own(&mut || more = work());
                    if more {
                        own_time += t0.elapsed();
                        own_chunks += 1;
                        continue;
                    }
                    // Every chunk is claimed: wait for the helper scanning `next`, then take it over.
                    let patience = if own_chunks > 0 { own_time / own_chunks } else { PATIENCE };
                    match wait(next, patience) {
                        Some(out) => out,
                        None => {
                            let mut out = Vec::new();
                            own(&mut || out = run(next));
                            out
                        }
                    }
                }
            };
            if let Err(e) = consume(next * chunk, out) {
                claimed.store(m, Ordering::Relaxed);
                return Err(e);
            }
            next += 1;
        }
        Ok(())
    })
}

/// Check many ActionResult JSON documents against one contract, in parallel.
pub fn check_many<'c, T: AsRef<[u8]> + Sync>(contract: &'c Contract, docs: &[T], soft: Option<f64>)
    -> Vec<Result<Observation<'c>, InputError>> {
    let total: usize = docs.iter().map(|d| d.as_ref().len()).sum();
    match grouping(docs.len(), total) {
        None => docs.iter().map(|d| contract.check_bytes(d.as_ref(), soft)).collect(),
        Some(min_len) => docs.par_iter().with_min_len(min_len).map(|d| contract.check_bytes(d.as_ref(), soft)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(n: usize, chunk: usize, helpers: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut starts = Vec::new();
        let mut own_calls = 0;
        pipeline(
            n,
            chunk,
            helpers,
            |i| i * 3,
            |start, v: Vec<usize>| -> Result<(), ()> {
                starts.push(start);
                out.extend(v);
                Ok(())
            },
            |f| {
                own_calls += 1;
                f()
            },
        )
        .unwrap();
        assert!(n == 0 || own_calls > 0);
        assert_eq!(starts, (0..n.div_ceil(chunk.max(1))).map(|j| j * chunk.max(1)).collect::<Vec<_>>());
        out
    }

    #[test]
    fn pipeline_keeps_order_for_every_split() {
        for n in [0, 1, 2, 7, 64, 1000] {
            for chunk in [0, 1, 3, 64, 5000] {
                for helpers in [0, 1, 3] {
                    assert_eq!(collect(n, chunk, helpers), (0..n).map(|i| i * 3).collect::<Vec<_>>(), "{n} {chunk} {helpers}");
                }
            }
        }
    }

    #[test]
    fn pipeline_scans_on_helpers_and_the_caller() {
        let caller = std::thread::current().id();
        let ids = Mutex::new(std::collections::HashSet::new());
        let scan = |i: usize| {
            ids.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_micros(200));
            i
        };
        let mut got = 0;
        pipeline(
            200,
            4,
            1,
            scan,
            |_, v: Vec<usize>| -> Result<(), ()> {
                got += v.len();
                Ok(())
            },
            |f| f(),
        )
        .unwrap();
        assert_eq!(got, 200);
        let ids = ids.into_inner().unwrap();
        assert!(ids.contains(&caller), "the calling thread scans too");
        if rayon::current_num_threads() > 1 {
            assert!(ids.len() >= 2, "a helper scans too: {ids:?}");
        }
    }

    #[test]
    fn pipeline_stops_at_the_first_consume_error() {
        let scanned = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let r = pipeline(
            10_000,
            10,
            1,
            |i| {
                scanned.fetch_add(1, Ordering::Relaxed);
                i
            },
            |start, _| {
                seen.push(start);
                if start == 20 { Err("stop") } else { Ok(()) }
            },
            |f| f(),
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(seen, vec![0, 10, 20]);
        assert!(scanned.load(Ordering::Relaxed) < 10_000, "no chunk is claimed after the error");
    }

    #[test]
    fn pipeline_takes_over_a_stalled_helper_chunk() {
        // Its own pool, so that other tests do not keep the helper busy.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (out, last, stalled) = pool.install(|| {
            let caller = std::thread::current().id();
            let t0 = Instant::now();
            let mut last = None;
            let stalled = AtomicUsize::new(0);
            // The caller's first chunk is slow (the helper claims a chunk meanwhile); the helper's
            // first chunk takes 300 ms (a descheduled thread): the caller must not wait for it.
            let scan = |i: usize| {
                if std::thread::current().id() != caller {
                    if stalled.fetch_add(1, Ordering::Relaxed) == 0 {
                        std::thread::sleep(Duration::from_millis(300));
                    }
                } else if i < 10 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                i
            };
            let mut out = Vec::new();
            pipeline(
                400,
                10,
                1,
                scan,
                |_, v: Vec<usize>| -> Result<(), ()> {
                    out.extend(v);
                    last = Some(t0.elapsed());
                    Ok(())
                },
                |f| f(),
            )
            .unwrap();
            (out, last.unwrap(), stalled.into_inner())
        });
        assert_eq!(out, (0..400).collect::<Vec<_>>());
        assert!(stalled > 0, "the helper never ran");
        assert!(last < Duration::from_millis(250), "{last:?}");
    }

    #[test]
    fn pipeline_resumes_a_helper_panic() {
        let r = std::panic::catch_unwind(|| {
            let scan = |i| if i == 995 { panic!("boom") } else { i };
            pipeline(1000, 10, 2, scan, |_, _| -> Result<(), ()> { Ok(()) }, |f| f())
        });
        assert!(r.is_err());
    }

    #[test]
    fn chunking_runs_small_batches_on_the_caller() {
        assert_eq!(chunking(1, 1 << 20), None);
        assert_eq!(chunking(8, 8 * 192), None);
        if rayon::current_num_threads() > 1 {
            assert_eq!(chunking(1024, 1024 * 192), Some(CHUNK_BYTES / 192));
            assert_eq!(chunking(4, 4 * 479_116), Some(1));
        }
    }
}
