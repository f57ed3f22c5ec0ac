//! Who runs a step's parallel loops: the calling thread alone, or the
//! threads of the rayon pool with it.
//!
//! Every parallel loop of a step cuts its work into chunks of a fixed size
//! and each chunk's result depends only on its input, so the answer is the
//! same bits however the chunks are shared out. The choice here changes only
//! the time: handing chunks to another thread wakes it (a system call, tens
//! of microseconds on a virtual machine), and a small step is over before
//! that pays off.
//!
//! Where one thread leads a run of short phases, the others should not
//! fall asleep between them: [`BlockClaims`] hands out a phase's blocks to
//! threads that wait by spinning, and [`HelperBoard`] lets a thread that
//! has finished its own part of a phase wait on the board for the leader's
//! next piece of shared work instead of in rayon's pool. Work that must be
//! done during a phase but by no set time within it waits on the board as
//! an *errand*, which the helper runs whenever no shared work is posted.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Shapes below which a step runs on the calling thread alone. Measured on
/// circle piles stepped on a two-thread pool: sharing the loops made a pile
/// of 7,000 circles 13 % slower than running them on the calling thread,
/// and one of 9,000 10 % faster. Around this size the solver, the largest
/// phase, starts to split its passes too (see `SMALL_STEP_BATCHES`).
const POOL_MIN_SHAPES: usize = 8_192;

/// Who runs a step's parallel loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Threading {
    /// Every loop runs on the calling thread; no work is handed to rayon's
    /// threads.
    Calling,
    /// Loops are split among the threads of the current rayon pool.
    Pool,
}

impl Threading {
    /// The threading of a step over `shapes` shapes, called from a pool of
    /// `threads` threads (or from outside rayon, with a global pool of that
    /// many). A pool of one thread has no one to share with.
    pub fn for_step(shapes: usize, threads: usize) -> Threading {
        if shapes < POOL_MIN_SHAPES || threads < 2 {
            Threading::Calling
        } else {
            Threading::Pool
        }
    }

    /// The fewest items a parallel loop may give one task (rayon's
    /// `with_min_len`). On the calling thread that is all of them: rayon
    /// then runs the loop where it is called, without waking any worker.
    pub fn min_len(self) -> usize {
        match self {
            Threading::Calling => usize::MAX,
            Threading::Pool => 1,
        }
    }
}

/// Who runs a parallel loop of a step: as `threading` says, or, when given
/// `helper`, the calling thread with the helper waiting on that board.
#[derive(Clone, Copy)]
pub(crate) struct Sharing<'a> {
    pub threading: Threading,
    pub helper: Option<&'a HelperBoard>,
}

impl Sharing<'_> {
    /// Lets the helper, if any, take the errand held back from it (see
    /// [`HelperBoard::release_errand`]).
    pub fn release_errand(&self) {
        if let Some(board) = self.helper {
            board.release_errand();
        }
    }
}

/// Which end of a run of blocks a thread takes its blocks from. The leader
/// works from the front and helpers from the back, so each thread keeps to
/// roughly the same data from one phase to the next (and it stays in its
/// cache) while the split still adapts to how fast each thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Front = 0,
    Back = 1,
}

/// Progress of one phase split into blocks: blocks handed out and blocks
/// finished. The blocks are cut into two halves, each with its claims on a
/// cache line of its own: a thread takes blocks from its end's half and
/// reaches into the other's only once its own half is all handed out, and
/// it counts the blocks it finishes on its end's line. So while the two
/// threads work, each writes only its own line, where on one shared line
/// every claim and finish took the line from the other core first.
#[derive(Debug, Default)]
pub(crate) struct BlockClaims {
    /// The front half's claims and the blocks finished from the front,
    /// then the back half's and those finished from the back.
    halves: [HalfClaims; 2],
    /// Blocks in the front half, when not half of them rounded down (see
    /// [`BlockClaims::with_front`]).
    front: Option<usize>,
}

/// One half of a [`BlockClaims`].
#[derive(Debug, Default)]
#[repr(align(64))]
struct HalfClaims {
    /// Blocks of this half handed out from the front (low 32 bits) and
    /// from the back (high 32 bits).
    claimed: AtomicU64,
    /// Blocks finished by the threads that work from this half's end.
    done: AtomicU32,
    /// Which of the phase's first [`TRACKED_BLOCKS`] blocks those threads
    /// finished, a bit each.
    finished: AtomicU64,
}

/// Blocks of a phase whose finishing [`BlockClaims`] tracks one by one.
pub(crate) const TRACKED_BLOCKS: usize = u64::BITS as usize;

/// Which of a phase's first [`TRACKED_BLOCKS`] blocks had finished when
/// [`BlockClaims::finished`] looked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FinishedBlocks(u64);

impl FinishedBlocks {
    /// Whether `block` had finished; always `false` past the first
    /// [`TRACKED_BLOCKS`].
    pub fn contains(self, block: usize) -> bool {
        block < TRACKED_BLOCKS && self.0 & (1 << block) != 0
    }
}

/// What a claim on one half of the blocks came to.
enum HalfClaim {
    Taken(usize),
    /// The next block from that end may not run yet.
    NotReady,
    /// Every block of the half is handed out.
    Exhausted,
}

impl HalfClaims {
    /// The next unclaimed block of `blocks` (this half's) from `end`.
    fn claim_if(&self, end: End, blocks: Range<usize>, ready: impl Fn(usize) -> bool) -> HalfClaim {
        let mut seen = self.claimed.load(Ordering::Relaxed);
        loop {
            let (front, back) = (seen & u64::from(u32::MAX), seen >> 32);
            if (front + back) as usize >= blocks.len() {
                return HalfClaim::Exhausted;
            }
            let (next, block) = match end {
                End::Front => (seen + 1, blocks.start + front as usize),
                End::Back => (seen + (1 << 32), blocks.end - 1 - back as usize),
            };
            if !ready(block) {
                return HalfClaim::NotReady;
            }
            match self.claimed.compare_exchange_weak(
                seen,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return HalfClaim::Taken(block),
                Err(actual) => seen = actual,
            }
        }
    }
}

impl BlockClaims {
    /// The next unclaimed block from `end`, if any is left of `blocks`.
    pub fn claim(&self, end: End, blocks: usize) -> Option<usize> {
        self.claim_if(end, blocks, |_| true)
    }

    /// The next unclaimed block from `end`, if any is left of `blocks` and
    /// `ready` says it may run now; otherwise the block stays unclaimed.
    /// From the front that is the lowest block left, from the back the
    /// highest, as if the halves were one run.
    pub fn claim_if(
        &self,
        end: End,
        blocks: usize,
        ready: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        self.claim_from_halves(end, blocks, 2, ready)
    }

    /// Claims whose front half holds the first `front` blocks (all of
    /// them, if fewer) rather than half of them: the blocks the thread
    /// working from the front owns.
    pub fn with_front(front: usize) -> BlockClaims {
        BlockClaims {
            front: Some(front),
            ..BlockClaims::default()
        }
    }

    /// The halves of `blocks`, `end`'s first, with their blocks.
    fn halves_from(&self, end: End, blocks: usize) -> [(usize, Range<usize>); 2] {
        let mid = self.front.map_or(blocks / 2, |front| front.min(blocks));
        match end {
            End::Front => [(0, 0..mid), (1, mid..blocks)],
            End::Back => [(1, mid..blocks), (0, 0..mid)],
        }
    }

    /// The next unclaimed block of `end`'s own half from `end`, if any is
    /// left and `ready` says it may run now; unlike
    /// [`BlockClaims::claim_if`], never one of the other half.
    pub fn claim_own_if(
        &self,
        end: End,
        blocks: usize,
        ready: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        self.claim_from_halves(end, blocks, 1, ready)
    }

    /// The next unclaimed block from `end` of the first `halves` halves
    /// (`end`'s own first), if `ready` says it may run now.
    fn claim_from_halves(
        &self,
        end: End,
        blocks: usize,
        halves: usize,
        ready: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        for (half, range) in self.halves_from(end, blocks).into_iter().take(halves) {
            match self.halves[half].claim_if(end, range, &ready) {
                HalfClaim::Taken(block) => return Some(block),
                HalfClaim::NotReady => return None,
                HalfClaim::Exhausted => {}
            }
        }
        None
    }

    /// Claims blocks of `blocks` from `end` and runs `run` on each until
    /// none are left, counting each as finished once it has run.
    ///
    /// A block that panics still counts as finished, so that no thread
    /// waits for it for ever: the panic unwinds this thread, and reaches the
    /// caller through the join or scope that started it.
    pub fn work(&self, end: End, blocks: usize, mut run: impl FnMut(usize)) {
        while let Some(block) = self.claim(end, blocks) {
            self.run_claimed(end, block, &mut run);
        }
    }

    /// Runs `run` on `block`, claimed by this thread from `end`, and counts
    /// the block as finished once it has run (or panicked; see
    /// [`BlockClaims::work`]).
    pub fn run_claimed(&self, end: End, block: usize, run: impl FnOnce(usize)) {
        let own = &self.halves[end as usize];
        let _finished = OnDrop(|| {
            if block < TRACKED_BLOCKS {
                own.finished.fetch_or(1 << block, Ordering::Release);
            }
            own.done.fetch_add(1, Ordering::Release);
        });
        run(block);
    }

    /// The blocks known to be finished by now (what they wrote is then
    /// visible).
    pub fn finished(&self) -> FinishedBlocks {
        let finished = |half: &HalfClaims| half.finished.load(Ordering::Acquire);
        FinishedBlocks(finished(&self.halves[0]) | finished(&self.halves[1]))
    }

    /// Whether all `blocks` have run (what they wrote is then visible).
    /// Each count only grows, so a sum read while blocks finish is never
    /// more than have finished.
    pub fn all_done(&self, blocks: usize) -> bool {
        let done = |half: &HalfClaims| half.done.load(Ordering::Acquire) as usize;
        done(&self.halves[0]) + done(&self.halves[1]) >= blocks
    }

    /// Waits, spinning, until all `blocks` have run (those claimed by other
    /// threads included); what they wrote is then visible.
    pub fn wait_for(&self, blocks: usize) {
        let mut spins = 0;
        while !self.all_done(blocks) {
            pause(&mut spins);
        }
    }
}

/// Runs its closure when dropped, unwinding included.
pub(crate) struct OnDrop<F: FnMut()>(pub F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// Spins between yields to the operating system while waiting, so that a
/// thread whose partner was descheduled does not hold its core for long.
const SPINS_BEFORE_YIELD: u32 = 1 << 10;

/// One round of waiting: a spin, and now and then a yield.
#[inline]
pub(crate) fn pause(spins: &mut u32) {
    *spins += 1;
    if *spins % SPINS_BEFORE_YIELD == 0 {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// A piece of work the leader shares on a [`HelperBoard`]: `blocks`
/// blocks, each run by `run`.
struct SharedJob<'a> {
    claims: BlockClaims,
    blocks: usize,
    run: &'a (dyn Fn(usize) + Sync),
}

/// Work for the helper to do on its own while it has no job to help with
/// (see [`HelperBoard::with_errand`]).
struct Errand<'a> {
    /// Set by whichever thread runs the errand.
    claimed: AtomicBool,
    /// Set once the errand has run (or panicked).
    done: AtomicBool,
    run: &'a (dyn Fn() + Sync),
}

impl Errand<'_> {
    /// Claims the errand; says whether this thread got it.
    fn claim(&self) -> bool {
        !self.claimed.load(Ordering::Relaxed) && !self.claimed.swap(true, Ordering::AcqRel)
    }

    /// Runs the claimed errand, and marks it done even if it panics.
    fn run_claimed(&self) {
        let _done = OnDrop(|| self.done.store(true, Ordering::Release));
        (self.run)();
    }
}

/// Where a leading thread posts work for one helper that waits on the
/// board, spinning, until the leader closes it. A helper that has gone back
/// to rayon's pool falls asleep within some tens of microseconds and takes
/// as long again to wake; one that waits here starts on shared work at once,
/// and returns to the pool just as the leader's next parallel loop begins.
///
/// The leader works on every job too, so a job finishes even if no helper
/// ever comes.
#[derive(Default)]
pub(crate) struct HelperBoard {
    /// The job being shared (a `SharedJob`), or null.
    job: OwnLine<AtomicPtr<()>>,
    /// The errand waiting for the helper (an `Errand`), or null.
    errand: AtomicPtr<()>,
    /// An errand the leader holds back until it releases it (see
    /// [`HelperBoard::with_held_errand`]), or null; only the leader uses it.
    held: AtomicPtr<()>,
    /// Helpers between reading `job` and being done with what it pointed
    /// to: a job is not dropped while any are.
    visiting: OwnLine<AtomicUsize>,
    closed: AtomicBool,
}

/// A value on a cache line of its own: the helper writes `visiting` all
/// the time it waits, and the leader writes `job` only to post and
/// withdraw.
#[derive(Default)]
#[repr(align(64))]
struct OwnLine<T>(T);

impl HelperBoard {
    /// Runs `run` on every block of `blocks`, the leader from the front and
    /// a waiting helper, if any, from the back; returns once all have run.
    pub fn share(&self, blocks: usize, run: &(dyn Fn(usize) + Sync)) {
        self.share_after(|| (), blocks, run);
    }

    /// [`HelperBoard::share`], with the leader first running `first`
    /// while the helper starts on the blocks.
    pub fn share_after(&self, first: impl FnOnce(), blocks: usize, run: &(dyn Fn(usize) + Sync)) {
        let job = SharedJob {
            claims: BlockClaims::default(),
            blocks,
            run,
        };
        let posted = std::ptr::from_ref(&job).cast_mut().cast::<()>();
        self.job.0.store(posted, Ordering::SeqCst);
        // Withdraws the job, and waits until no helper can still reach it,
        // before it is dropped (even while unwinding).
        let _withdraw = OnDrop(|| {
            self.job.0.store(std::ptr::null_mut(), Ordering::SeqCst);
            let mut spins = 0;
            while self.visiting.0.load(Ordering::SeqCst) != 0 {
                pause(&mut spins);
            }
        });
        first();
        job.claims.work(End::Front, blocks, run);
        job.claims.wait_for(blocks);
    }

    /// Works on the jobs the leader posts until it closes the board.
    pub fn help(&self) {
        let mut spins = 0;
        while !self.closed.load(Ordering::Acquire) {
            // Counted as visiting before reading the job: the leader, having
            // withdrawn a job, waits for the count to drop to zero, so a job
            // read here stays alive until this visit ends (which a panic in
            // the job ends too).
            self.visiting.0.fetch_add(1, Ordering::SeqCst);
            let visit = OnDrop(|| {
                self.visiting.0.fetch_sub(1, Ordering::SeqCst);
            });
            let job = self
                .job
                .0
                .load(Ordering::SeqCst)
                .cast::<SharedJob>()
                .cast_const();
            let errand = || self.errand.load(Ordering::SeqCst).cast::<Errand>();
            // SAFETY: a non-null `job` points to a posted job, alive while
            // this thread is counted as visiting (see above); an errand
            // likewise, and once claimed it stays alive until it is done
            // (see `with_errand`), visiting or not.
            if let Some(job) = unsafe { job.as_ref() } {
                job.claims.work(End::Back, job.blocks, job.run);
                spins = 0;
            } else if let Some(errand) = unsafe { errand().cast_const().as_ref() } {
                // Claimed while visiting: the leader, having withdrawn the
                // errand, then sees the claim and waits for it to be done.
                if errand.claim() {
                    drop(visit);
                    errand.run_claimed();
                    spins = 0;
                    continue;
                }
            }
            drop(visit);
            pause(&mut spins);
        }
    }

    /// Runs `lead` while `errand` waits on the board for the helper to run
    /// when it has no job to help with (jobs `lead` shares come first); if
    /// no helper took it by the time `lead` returns, the leader runs it
    /// then. Returns what both returned.
    pub fn with_errand<A, R: Send>(
        &self,
        errand: impl FnOnce() -> R + Send,
        lead: impl FnOnce() -> A,
    ) -> (A, R) {
        self.errand_while(errand, lead, false)
    }

    /// [`HelperBoard::with_errand`], with the errand held back from the
    /// helper until `lead` calls [`HelperBoard::release_errand`]: so the
    /// helper stays free for the jobs `lead` shares first.
    pub fn with_held_errand<A, R: Send>(
        &self,
        errand: impl FnOnce() -> R + Send,
        lead: impl FnOnce() -> A,
    ) -> (A, R) {
        self.errand_while(errand, lead, true)
    }

    /// Lets the helper take the errand held back (none if there is none or
    /// it was released already).
    pub fn release_errand(&self) {
        let held = self.held.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !held.is_null() {
            self.errand.store(held, Ordering::SeqCst);
        }
    }

    /// Runs `lead` with `errand` on the board, posted at once or, if
    /// `held`, once `lead` releases it.
    fn errand_while<A, R: Send>(
        &self,
        errand: impl FnOnce() -> R + Send,
        lead: impl FnOnce() -> A,
        held: bool,
    ) -> (A, R) {
        let task = std::sync::Mutex::new(Some(errand));
        let result = std::sync::Mutex::new(None);
        let run = || {
            let errand = task.lock().map(|mut t| t.take()).ok().flatten();
            if let Some(errand) = errand {
                let value = errand();
                if let Ok(mut slot) = result.lock() {
                    *slot = Some(value);
                }
            }
        };
        let posted = Errand {
            claimed: AtomicBool::new(false),
            done: AtomicBool::new(false),
            run: &run,
        };
        let pointer = std::ptr::from_ref(&posted).cast_mut().cast::<()>();
        let slot = if held { &self.held } else { &self.errand };
        slot.store(pointer, Ordering::SeqCst);
        // Withdraws the errand (even while unwinding) and runs it here if
        // the helper did not take it; otherwise waits until it is done, so
        // that nothing it reads or writes is dropped under it.
        let finish = OnDrop(|| {
            self.held.store(std::ptr::null_mut(), Ordering::SeqCst);
            self.errand.store(std::ptr::null_mut(), Ordering::SeqCst);
            let mut spins = 0;
            while self.visiting.0.load(Ordering::SeqCst) != 0 {
                pause(&mut spins);
            }
            if posted.claim() {
                // Unwinding, an errand no one took is dropped, not run.
                if !std::thread::panicking() {
                    posted.run_claimed();
                }
                return;
            }
            while !posted.done.load(Ordering::Acquire) {
                pause(&mut spins);
            }
        });
        let led = lead();
        drop(finish);
        let value = result.into_inner().ok().flatten();
        (led, value.expect("the errand ran, on the helper or here"))
    }

    /// Closes the board, sending the helper back to the pool, when the
    /// returned guard is dropped: at the end of the leader's part, or as it
    /// unwinds.
    pub fn closer(&self) -> impl Drop + '_ {
        OnDrop(|| self.closed.store(true, Ordering::Release))
    }
}

/// Runs `lead` on the calling thread with a board to share work on, while
/// another thread of the pool, if one is free, runs `first` and then waits
/// on the board until `lead` is done (the board is closed however `lead`
/// ends, so the helper never waits for ever). Returns what both returned.
pub(crate) fn with_helper<A: Send, B: Send>(
    lead: impl FnOnce(&HelperBoard) -> A + Send,
    first: impl FnOnce() -> B + Send,
) -> (A, B) {
    let board = HelperBoard::default();
    let lead = || {
        let _close = board.closer();
        lead(&board)
    };
    let help = || {
        let first = first();
        board.help();
        first
    };
    rayon::join(lead, help)
}

/// Runs `run` on each of `inputs` and returns the results in order: on a
/// `board`, its leader and helper each taking inputs as they come (each
/// input runs once, whoever claims it), else one after the other on this
/// thread. If an input's run panicked on the helper, its result is
/// missing: this thread then stops with `failed` (the panic itself reaches
/// the caller through the join that started the helper).
pub(crate) fn share_each<I: Send, R: Send, const N: usize>(
    board: Option<&HelperBoard>,
    inputs: [I; N],
    run: impl Fn(I) -> R + Sync,
    failed: &str,
) -> [R; N] {
    let mut slots = inputs.map(|input| (Some(input), None));
    share_slots(board, &mut slots, |_, (input, result)| {
        *result = input.take().map(&run);
    });
    slots.map(|(_, result)| result.expect(failed))
}

/// Runs `run` once on each of `slots`, with its index (task `k` gets slot
/// `k` to itself): on a `board`, its leader and helper each taking tasks as
/// they come, else one after the other on this thread.
pub(crate) fn share_slots<T: Send>(
    board: Option<&HelperBoard>,
    slots: &mut [T],
    run: impl Fn(usize, &mut T) + Sync,
) {
    share_slots_after(board, || (), slots, run);
}

/// [`share_slots`], with this thread first running `first` (on a board,
/// while the helper starts on the tasks from the back).
pub(crate) fn share_slots_after<T: Send>(
    board: Option<&HelperBoard>,
    first: impl FnOnce(),
    slots: &mut [T],
    run: impl Fn(usize, &mut T) + Sync,
) {
    match board {
        Some(board) => {
            let tasks = slots.len();
            let slots = TaskSlots::new(slots);
            board.share_after(first, tasks, &|k| {
                // SAFETY: each task runs once, so its slot is its own.
                run(k, unsafe { slots.at(k) });
            });
        }
        None => {
            first();
            for (k, slot) in slots.iter_mut().enumerate() {
                run(k, slot);
            }
        }
    }
}

/// One slot per task of a job shared on a [`HelperBoard`], reached by
/// whichever thread runs the task.
struct TaskSlots<'a, T> {
    first: *mut T,
    len: usize,
    _slots: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: a slot is reached only through `at`, whose callers promise that
// one thread at a time holds each slot.
unsafe impl<T: Send> Sync for TaskSlots<'_, T> {}

impl<'a, T> TaskSlots<'a, T> {
    fn new(slots: &'a mut [T]) -> Self {
        TaskSlots {
            first: slots.as_mut_ptr(),
            len: slots.len(),
            _slots: std::marker::PhantomData,
        }
    }

    /// Task `task`'s slot.
    ///
    /// # Safety
    /// No other thread may hold the same slot while this one does (each
    /// task runs once, so its slot is its own).
    #[allow(clippy::mut_from_ref)]
    unsafe fn at(&self, task: usize) -> &mut T {
        assert!(task < self.len, "one slot per task");
        // SAFETY: in bounds (above), and the caller's guarantee.
        unsafe { &mut *self.first.add(task) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_and_back_claims_hand_out_every_block_once() {
        for blocks in [0, 1, 2, 7, 64] {
            let claims = BlockClaims::default();
            let mut seen = vec![0; blocks];
            let mut turn = 0;
            loop {
                let end = if turn % 3 == 0 { End::Back } else { End::Front };
                turn += 1;
                match claims.claim(end, blocks) {
                    Some(block) => seen[block] += 1,
                    None => break,
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{blocks} blocks: {seen:?}");
            assert_eq!(claims.claim(End::Front, blocks), None);
            assert_eq!(claims.claim(End::Back, blocks), None);
        }
    }

    #[test]
    fn the_front_counts_up_and_the_back_counts_down() {
        let claims = BlockClaims::default();
        assert_eq!(claims.claim(End::Front, 5), Some(0));
        assert_eq!(claims.claim(End::Back, 5), Some(4));
        assert_eq!(claims.claim(End::Back, 5), Some(3));
        assert_eq!(claims.claim(End::Front, 5), Some(1));
    }

    #[test]
    fn an_end_whose_half_is_out_goes_on_into_the_other_half_as_one_run() {
        let claims = BlockClaims::default();
        let blocks = 7;
        let front: Vec<_> = (0..5).map(|_| claims.claim(End::Front, blocks)).collect();
        assert_eq!(front, [0, 1, 2, 3, 4].map(Some));
        assert_eq!(claims.claim(End::Back, blocks), Some(6));
        assert_eq!(claims.claim(End::Back, blocks), Some(5));
        assert_eq!(claims.claim(End::Back, blocks), None);
        let claims = BlockClaims::default();
        let back: Vec<_> = (0..6).map(|_| claims.claim(End::Back, blocks)).collect();
        assert_eq!(back, [6, 5, 4, 3, 2, 1].map(Some));
        assert_eq!(claims.claim(End::Front, blocks), Some(0));
        assert!(!claims.all_done(1));
        // Each end counts what it finishes on its own line; both count.
        claims.run_claimed(End::Back, 1, |_| ());
        claims.run_claimed(End::Front, 0, |_| ());
        assert!(claims.all_done(2) && !claims.all_done(3));
        let finished = claims.finished();
        assert!(finished.contains(0) && finished.contains(1) && !finished.contains(3));
    }

    #[test]
    fn each_end_owns_its_half_and_takes_the_other_only_when_it_asks() {
        // The front owns the first three of five blocks here, not two.
        let claims = BlockClaims::with_front(3);
        let blocks = 5;
        let own = |end| claims.claim_own_if(end, blocks, |_| true);
        assert_eq!([own(End::Front), own(End::Front)], [Some(0), Some(1)]);
        assert_eq!([own(End::Back), own(End::Back)], [Some(4), Some(3)]);
        assert_eq!(own(End::Back), None, "block 2 is the front's");
        // A block its owner may not run yet stays unclaimed.
        assert_eq!(claims.claim_own_if(End::Front, blocks, |b| b != 2), None);
        assert_eq!(claims.claim(End::Back, blocks), Some(2));
        assert_eq!(
            [own(End::Front), claims.claim(End::Front, blocks)],
            [None; 2]
        );
        // More owned blocks than there are: the front owns them all.
        let claims = BlockClaims::with_front(9);
        assert_eq!(claims.claim_own_if(End::Back, 4, |_| true), None);
        assert_eq!(claims.claim(End::Back, 4), Some(3));
    }

    #[test]
    fn a_block_not_ready_stays_unclaimed_and_a_finished_one_is_known() {
        let claims = BlockClaims::default();
        let blocks = TRACKED_BLOCKS + 2;
        // The block at each end is offered to `ready`, and left if refused.
        assert_eq!(claims.claim_if(End::Front, blocks, |b| b != 0), None);
        assert_eq!(
            claims.claim_if(End::Back, blocks, |b| b == blocks - 1),
            Some(blocks - 1)
        );
        assert_eq!(claims.claim(End::Front, blocks), Some(0));
        assert!(!claims.finished().contains(0) && !claims.all_done(1));
        claims.run_claimed(End::Front, 0, |b| assert_eq!(b, 0));
        assert!(claims.finished().contains(0) && !claims.finished().contains(1));
        assert!(claims.all_done(1) && !claims.all_done(2));
        // Past the tracked blocks, a finished block only counts.
        claims.run_claimed(End::Back, blocks - 1, |_| ());
        assert!(!claims.finished().contains(blocks - 1) && claims.all_done(2));
    }

    #[test]
    fn a_helper_on_the_board_shares_every_job_and_each_block_runs_once() {
        let board = HelperBoard::default();
        let runs: Vec<AtomicU32> = (0..3 * 97).map(|_| AtomicU32::new(0)).collect();
        std::thread::scope(|scope| {
            let close = board.closer();
            scope.spawn(|| board.help());
            for job in 0..3 {
                let run = |block: usize| {
                    runs[job * 97 + block].fetch_add(1, Ordering::Relaxed);
                };
                board.share(97, &run);
            }
            drop(close);
        });
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    /// Yields until `flag` is set, ten seconds at most.
    fn wait_a_while_for(flag: &AtomicBool) {
        let start = std::time::Instant::now();
        while !flag.load(Ordering::Acquire) && start.elapsed() < std::time::Duration::from_secs(10)
        {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_block_that_panics_on_the_helper_holds_up_no_one() {
        let board = HelperBoard::default();
        let leader = std::thread::current().id();
        let helper_took_one = AtomicBool::new(false);
        let on_leader = AtomicU32::new(0);
        let helped = std::thread::scope(|scope| {
            let close = board.closer();
            let helper = scope.spawn(|| board.help());
            board.share(16, &|_| {
                if std::thread::current().id() != leader {
                    helper_took_one.store(true, Ordering::Release);
                    panic!("a block failed on the helper");
                }
                // The leader's first block waits (a while at most) for the
                // helper to take one.
                wait_a_while_for(&helper_took_one);
                on_leader.fetch_add(1, Ordering::Relaxed);
            });
            drop(close);
            helper.join()
        });
        // The leader's share returned, with the helper's block counted,
        // and the helper's panic reached its join.
        assert!(helper_took_one.load(Ordering::Acquire));
        assert!(on_leader.load(Ordering::Relaxed) < 16);
        assert!(helped.is_err());
    }

    #[test]
    fn an_errand_runs_once_on_the_helper_while_the_leader_shares_jobs() {
        let board = HelperBoard::default();
        let leader = std::thread::current().id();
        let runs: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        let taken = AtomicBool::new(false);
        let errand = || {
            taken.store(true, Ordering::Release);
            std::thread::current().id()
        };
        let lead = || {
            board.share(64, &|block| {
                runs[block].fetch_add(1, Ordering::Relaxed);
            });
            // The leader keeps going (a while at most) until the helper,
            // with no job left, has taken the errand.
            wait_a_while_for(&taken);
            "led"
        };
        let (led, errand_thread) = std::thread::scope(|scope| {
            let close = board.closer();
            scope.spawn(|| board.help());
            let done = board.with_errand(errand, lead);
            drop(close);
            done
        });
        assert_eq!(led, "led");
        assert_ne!(errand_thread, leader, "the waiting helper ran the errand");
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn a_held_errand_waits_for_its_release_while_jobs_are_shared() {
        let board = HelperBoard::default();
        let released = AtomicBool::new(false);
        let ran_after_release = AtomicBool::new(false);
        let errand = || {
            ran_after_release.store(released.load(Ordering::Acquire), Ordering::Release);
        };
        let lead = || {
            // Long enough for a waiting helper to have taken a posted errand.
            let start = std::time::Instant::now();
            while start.elapsed() < std::time::Duration::from_millis(20) {
                std::thread::yield_now();
            }
            board.share(8, &|_| {});
            released.store(true, Ordering::Release);
            board.release_errand();
        };
        std::thread::scope(|scope| {
            let close = board.closer();
            scope.spawn(|| board.help());
            board.with_held_errand(errand, lead);
            drop(close);
        });
        // Released as the lead part ends, it ran on either thread, but only
        // then.
        assert!(
            ran_after_release.load(Ordering::Acquire),
            "the errand ran before it was released"
        );
    }

    #[test]
    fn an_errand_no_helper_takes_runs_on_the_leader_after_its_part() {
        let board = HelperBoard::default();
        let order = std::sync::Mutex::new(Vec::new());
        let (led, ran) = board.with_errand(
            || {
                order.lock().unwrap().push("errand");
                7
            },
            || {
                order.lock().unwrap().push("lead");
                3
            },
        );
        assert_eq!((led, ran), (3, 7));
        assert_eq!(*order.lock().unwrap(), ["lead", "errand"]);
    }

    #[test]
    fn a_job_finishes_with_no_helper() {
        let board = HelperBoard::default();
        let count = AtomicU32::new(0);
        board.share(10, &|_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(count.load(Ordering::Relaxed), 10);
    }

    #[test]
    fn each_input_shared_out_runs_once_and_its_result_keeps_its_place() {
        let runs: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
        let square = |k: u32| {
            runs[k as usize].fetch_add(1, Ordering::Relaxed);
            k * k
        };
        let alone = share_each(None, [0, 1, 2, 3], square, "no helper to fail");
        let board = HelperBoard::default();
        let shared = std::thread::scope(|scope| {
            let close = board.closer();
            scope.spawn(|| board.help());
            let shared = share_each(Some(&board), [0, 1, 2, 3], square, "a helper failed");
            drop(close);
            shared
        });
        assert_eq!(alone, [0, 1, 4, 9]);
        assert_eq!(shared, [0, 1, 4, 9]);
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 2));
    }

    #[test]
    fn an_input_that_panics_on_the_helper_stops_the_leader_with_a_message() {
        let board = HelperBoard::default();
        let leader = std::thread::current().id();
        let helper_took_one = AtomicBool::new(false);
        let run = |_: u32| {
            if std::thread::current().id() != leader {
                helper_took_one.store(true, Ordering::Release);
                panic!("an input failed on the helper");
            }
            // The leader waits (a while at most) for the helper to take
            // the other input.
            wait_a_while_for(&helper_took_one);
        };
        let (led, helped) = std::thread::scope(|scope| {
            let close = board.closer();
            let helper = scope.spawn(|| board.help());
            let led = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                share_each(Some(&board), [0, 1], run, "an input failed elsewhere")
            }));
            drop(close);
            (led, helper.join())
        });
        assert!(helper_took_one.load(Ordering::Acquire));
        let message = led.expect_err("the leader returned a missing result");
        let message = message.downcast_ref::<String>().map(String::as_str);
        assert!(message.is_some_and(|m| m.contains("an input failed elsewhere")));
        assert!(helped.is_err());
    }
}
