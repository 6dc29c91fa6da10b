//! A small persistent pool for the parallel batch: the calling thread and one helper thread
//! fewer than `available_parallelism` claim runs of items from one atomic counter, so the calling
//! thread does its share at once and never waits for a helper to start. A claim takes a share of
//! what is left (guided scheduling: large runs first, then smaller ones down to the caller's
//! minimum), so the threads meet at the end within a small run of each other with few claims.
//! After a batch a helper stays awake for [`AWAKE`] (spinning, then yielding its core to anyone
//! who wants it) before it parks, so in a hot loop of batches the next one finds it running: on
//! the 2-vCPU VM waking a parked rayon worker took ≈ 25 µs a batch, a large part of a 250 µs batch of small documents (round 4).
//!
//! One batch at a time uses the pool; a second thread that calls meanwhile runs on rayon as
//! before ([`par_map`] never blocks on another caller).
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use rayon::prelude::*;

/// How long a helper stays awake after its last chunk before it parks.
pub const AWAKE: Duration = Duration::from_micros(300);
/// Of [`AWAKE`], how long it spins before it starts yielding its core between looks.
const SPIN: Duration = Duration::from_micros(30);
/// At most this many helper threads (the pool is for batches of small documents).
const MAX_HELPERS: usize = 7;

/// The job's function of a run of item indices, type-erased (it lives on the calling thread's
/// stack).
type Job<'a> = &'a (dyn Fn(Range<usize>) + Sync);

struct Shared {
    /// Bumped by each new job.
    epoch: AtomicU64,
    /// Points to the current job's `Job` (valid while `closed` is false or `active` > 0).
    job: AtomicPtr<Job<'static>>,
    /// The first item not yet claimed.
    next: AtomicUsize,
    /// Items in the job, the smallest run a claim takes, threads that take part.
    len: AtomicUsize,
    min_run: AtomicUsize,
    threads: AtomicUsize,
    closed: AtomicBool,
    /// Helpers inside the current job.
    active: AtomicUsize,
    /// A helper's chunk panicked.
    panicked: AtomicBool,
}

struct Helper {
    thread: Thread,
    parked: AtomicBool,
}

struct Pool {
    shared: &'static Shared,
    helpers: Vec<&'static Helper>,
    /// Held by the one caller that uses the pool.
    busy: Mutex<()>,
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let n = thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).min(MAX_HELPERS);
        if n == 0 {
            return None;
        }
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            epoch: AtomicU64::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            next: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            min_run: AtomicUsize::new(1),
            threads: AtomicUsize::new(1),
            closed: AtomicBool::new(true),
            active: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
        }));
        let mut helpers = Vec::with_capacity(n);
        for i in 0..n {
            let slot: &'static OnceLock<&'static Helper> = Box::leak(Box::new(OnceLock::new()));
            let handle = thread::Builder::new()
                .name(format!("rv-batch-{i}"))
                .spawn(move || helper_loop(shared, slot.wait()))
                .ok()?;
            let helper: &'static Helper =
                Box::leak(Box::new(Helper { thread: handle.thread().clone(), parked: AtomicBool::new(false) }));
            let _ = slot.set(helper);
            helpers.push(helper);
        }
        Some(Pool { shared, helpers, busy: Mutex::new(()) })
    })
    .as_ref()
}

/// Claim and run runs of the current job until no item is left.
fn work(s: &Shared, job: Job<'_>) {
    let (n, min, share) = (s.len.load(SeqCst), s.min_run.load(SeqCst), 2 * s.threads.load(SeqCst));
    let mut cur = s.next.load(SeqCst);
    while cur < n {
        let take = ((n - cur) / share).max(min).min(n - cur);
        match s.next.compare_exchange_weak(cur, cur + take, SeqCst, SeqCst) {
            Ok(_) => {
                job(cur..cur + take);
                cur = s.next.load(SeqCst);
            }
            Err(now) => cur = now,
        }
    }
}

fn helper_loop(s: &'static Shared, me: &'static Helper) {
    let mut seen = s.epoch.load(SeqCst);
    let mut idle_since = Instant::now();
    loop {
        let e = s.epoch.load(SeqCst);
        if e != seen {
            seen = e;
            s.active.fetch_add(1, SeqCst);
            // Registered first, then checked: a caller that closed its job before this sees
            // `active` > 0 only if the job was still open here (both sides are SeqCst).
            if s.epoch.load(SeqCst) == e && !s.closed.load(SeqCst) {
                // SAFETY: the job is open and this helper is counted in `active`: the caller
                // does not leave (and its `Job` stays alive) until `active` is back to 0.
                let job = unsafe { *s.job.load(SeqCst) };
                if catch_unwind(AssertUnwindSafe(|| work(s, job))).is_err() {
                    s.panicked.store(true, SeqCst);
                }
            }
            s.active.fetch_sub(1, SeqCst);
            idle_since = Instant::now();
            continue;
        }
        let idle = idle_since.elapsed();
        if idle < SPIN {
            std::hint::spin_loop();
        } else if idle < AWAKE {
            thread::yield_now();
        } else {
            me.parked.store(true, SeqCst);
            if s.epoch.load(SeqCst) == seen {
                thread::park();
            }
            me.parked.store(false, SeqCst);
            idle_since = Instant::now();
        }
    }
}

/// Closes the job and waits for the helpers inside it, also when the caller's own chunk panics.
struct Close<'a>(&'a Shared);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        self.0.closed.store(true, SeqCst);
        while self.0.active.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
    }
}

/// Run `job` over `0..len` (runs of at least `min_run` items) on this thread and the pool's
/// helpers; false when the pool is taken.
fn run(len: usize, min_run: usize, job: Job<'_>) -> bool {
    let Some(p) = pool() else { return false };
    // A poisoned lock only says an earlier batch panicked; the pool's state is reset below.
    let _guard = match p.busy.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return false,
    };
    let s = p.shared;
    let mut slot: Job<'_> = job;
    // SAFETY (lifetime erased): `Close` below keeps this frame, and so `slot`, alive until no
    // helper is inside the job.
    let ptr = (&mut slot as *mut Job<'_>).cast::<Job<'static>>();
    s.job.store(ptr, SeqCst);
    s.len.store(len, SeqCst);
    s.min_run.store(min_run.max(1), SeqCst);
    s.threads.store(p.helpers.len() + 1, SeqCst);
    s.next.store(0, SeqCst);
    s.panicked.store(false, SeqCst);
    s.closed.store(false, SeqCst);
    s.epoch.fetch_add(1, SeqCst);
    for h in &p.helpers {
        if h.parked.load(SeqCst) {
            h.thread.unpark();
        }
    }
    {
        let _close = Close(s);
        work(s, slot);
    }
    if s.panicked.load(SeqCst) {
        resume_unwind(Box::new("a batch chunk panicked on a pool helper"));
    }
    true
}

/// The results, written at distinct indices by several threads.
struct Out<R>(UnsafeCell<Vec<MaybeUninit<R>>>);
// SAFETY: each index is written by exactly one run (runs are disjoint), and the vector is read
// only after every run is done.
unsafe impl<R: Send> Sync for Out<R> {}

/// `items.iter().map(f).collect()`, in parallel in runs of at least `chunk` items (the pool when
/// it is free, else rayon). Order is kept.
pub fn par_map<T: Sync, R: Send>(items: &[T], chunk: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = items.len();
    let chunk = chunk.max(1);
    if n.div_ceil(chunk) < 2 {
        return items.iter().map(f).collect();
    }
    let mut v: Vec<MaybeUninit<R>> = Vec::with_capacity(n);
    // SAFETY: `MaybeUninit` needs no initialisation.
    unsafe { v.set_len(n) };
    let out = Out(UnsafeCell::new(v));
    let base = unsafe { (*out.0.get()).as_mut_ptr() } as usize;
    let job = |run: Range<usize>| {
        let dst = base as *mut MaybeUninit<R>;
        for i in run {
            // SAFETY: index `i` < n belongs to this run only (runs are claimed once each).
            unsafe { (*dst.add(i)).write(f(&items[i])) };
        }
    };
    if !run(n, chunk, &job) {
        return items.par_iter().with_min_len(chunk).map(&f).collect();
    }
    let v = out.0.into_inner();
    // SAFETY: every run ran to its end (a panic would have been resumed above), so every
    // element is initialised; `MaybeUninit<R>` has `R`'s layout.
    let mut v = std::mem::ManuallyDrop::new(v);
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<R>(), v.len(), v.capacity()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_for_every_chunk_size() {
        let items: Vec<usize> = (0..1000).collect();
        for chunk in [1, 2, 7, 64, 999, 1000, 5000] {
            let out = par_map(&items, chunk, |x| x * 3);
            assert_eq!(out, items.iter().map(|x| x * 3).collect::<Vec<_>>());
        }
        assert!(par_map(&Vec::<usize>::new(), 4, |x| *x).is_empty());
    }

    #[test]
    fn owned_results_are_moved_once() {
        let items: Vec<usize> = (0..500).collect();
        let out = par_map(&items, 3, |x| vec![x.to_string(); 2]);
        assert!(out.iter().enumerate().all(|(i, v)| v == &vec![i.to_string(); 2]));
    }

    #[test]
    fn after_the_helpers_park() {
        let items: Vec<u64> = (0..300).collect();
        for _ in 0..3 {
            thread::sleep(AWAKE * 4);
            assert_eq!(par_map(&items, 10, |x| x + 1).iter().sum::<u64>(), (1..=300u64).sum::<u64>());
        }
    }

    #[test]
    fn concurrent_callers_all_get_their_results() {
        let handles: Vec<_> = (0..4u64)
            .map(|t| {
                thread::spawn(move || {
                    let items: Vec<u64> = (0..2000).map(|x| x * t).collect();
                    for _ in 0..50 {
                        assert_eq!(par_map(&items, 16, |x| x + 1), items.iter().map(|x| x + 1).collect::<Vec<_>>());
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn a_panic_reaches_the_caller_and_the_pool_still_works() {
        let items: Vec<usize> = (0..400).collect();
        let r = catch_unwind(|| par_map(&items, 5, |x| if *x == 397 || *x == 3 { panic!("boom") } else { *x }));
        assert!(r.is_err());
        assert_eq!(par_map(&items, 5, |x| *x), items);
    }
}
