//! A small world steps on the calling thread alone: it never waits for
//! rayon's pool, so a program whose pool is busy with its own work (or a
//! game stepping a few hundred bodies per frame) pays no hand-off.
//!
//! This file holds one test because it occupies every thread of rayon's
//! global pool, which the tests of one binary share.

use std::sync::mpsc;
use std::time::Duration;

use carom::scene::Scene;

#[test]
fn a_small_world_steps_while_every_rayon_thread_is_busy() {
    // Hold every thread of the global pool on a job that waits for its own
    // release message.
    let threads = rayon::current_num_threads();
    let (started_tx, started) = mpsc::channel();
    let (releases, holds): (Vec<mpsc::Sender<()>>, Vec<_>) =
        (0..threads).map(|_| mpsc::channel()).unzip();
    for hold in holds {
        let started_tx = started_tx.clone();
        rayon::spawn(move || {
            started_tx.send(()).expect("test alive");
            let _ = hold.recv();
        });
    }
    for _ in 0..threads {
        started
            .recv_timeout(Duration::from_secs(30))
            .expect("every pool thread took a blocking job");
    }

    // 1,000 circles: below the size at which a step uses the pool. Were a
    // step to hand work to the pool, it would wait until the release below.
    let (done_tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut world = Scene::circle_pile(1_000)
            .build_world()
            .expect("pile builds");
        let start = world.state_hash();
        for _ in 0..30 {
            world.step();
        }
        done_tx
            .send(world.state_hash() != start)
            .expect("test alive");
    });
    let outcome = done.recv_timeout(Duration::from_secs(60));
    for release in releases {
        let _ = release.send(());
    }
    let moved = outcome.expect("the steps finished while the pool was busy");
    assert!(moved, "the pile moved");
}
