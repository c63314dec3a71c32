//! The harness of bench/gen_speed.py: the CPU time of the generated decider over a decoded trace held in memory,
//! pass by pass, each pass beside one of a bare `match` loop over the same events (the floor).
//!
//!     gen_speed EVENTS.tsv PASSES SESSION_LENGTH
//!
//! A fresh `Session` starts every SESSION_LENGTH events (the trace's sessions); one JSON line a pass.

use std::hint::black_box;
use std::io::{BufRead, BufReader};

use decider::{Event, Session, State};

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// CLOCK_THREAD_CPUTIME_ID on Linux: this thread's CPU time, which the machine's other work does not inflate.
const THREAD_CPU: i32 = 3;

fn cpu() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one Timespec, which `ts` is.
    let done = unsafe { clock_gettime(THREAD_CPU, &mut ts) };
    assert_eq!(done, 0, "clock_gettime failed");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// The events of a file of `name<TAB>t<TAB>id<TAB>speech_start` lines (the payload fields empty where absent).
fn decoded(path: &str) -> Vec<Event> {
    let file = std::fs::File::open(path).expect("the events file");
    BufReader::new(file)
        .lines()
        .map(|line| {
            let line = line.expect("a line");
            let mut fields = line.split('\t');
            let name = fields.next().unwrap();
            let t = fields.next().unwrap().parse().unwrap();
            let id = fields.next().filter(|s| !s.is_empty()).map(str::to_owned);
            let speech = fields.next().filter(|s| !s.is_empty()).map(|s| s.parse().unwrap());
            Event::named(name, t, id, speech).unwrap()
        })
        .collect()
}

/// Every event, a session per `length` of them: what the rows returned, folded so that nothing is optimised away.
fn decider(events: &[Event], length: usize) -> (u64, u64) {
    let (mut folded, mut refused) = (0u64, 0u64);
    for one in events.chunks(length) {
        let mut session = Session::new();
        for event in one {
            match session.step(event) {
                Ok(decision) => folded = folded.wrapping_add(decision.row as u64 + decision.actions.len() as u64),
                Err(_) => refused += 1,
            }
        }
    }
    (folded, refused)
}

/// The floor: one `match` on (state, event) per event, four transitions, nothing remembered.
fn floor(events: &[Event]) -> u64 {
    let mut state = State::Clear;
    let mut folded = 0u64;
    for event in events {
        state = match (state, event) {
            (State::Clear, Event::LossVoiced { .. }) => State::Open,
            (State::Open, Event::FloorReleased { .. }) => State::Sending,
            (State::Sending, Event::SendOk { .. }) => State::Requested,
            (State::Requested, Event::EvidenceTurn { .. }) => State::Clear,
            (same, _) => same,
        };
        folded = folded.wrapping_add(state as u64);
    }
    folded
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let events = decoded(&args[1]);
    let passes: usize = args[2].parse().unwrap();
    let length: usize = args[3].parse().unwrap();
    for _ in 0..passes {
        let start = cpu();
        let (folded, refused) = black_box(decider(black_box(&events), length));
        let took = cpu() - start;
        let start = cpu();
        let bare = black_box(floor(black_box(&events)));
        let floor_took = cpu() - start;
        println!(
            "{{\"events\": {}, \"decider\": {}, \"floor\": {}, \"refused\": {}, \"folded\": {}}}",
            events.len(), took, floor_took, refused, folded ^ bare
        );
    }
}
