//! Wall time per pass, for `--time-passes` (`LANEWISE_TIME_PASSES=1` in
//! `lanewise cc` and the pass plugin): where Lanewise's share of a
//! compilation goes (issue 18).
//!
//! The pipeline marks its steps with [`time`]; while a recording runs on
//! the thread ([`record`]), each step's time is added to its row, and a
//! step inside another counts for the inner one only (LLVM's
//! `-time-passes` and rustc's `-Z time-passes` report the same way), so
//! the rows add up to the whole run. Without a recording, [`time`] only
//! calls its closure. The recorder is thread-local state rather than a
//! parameter: the steps sit deep in functions whose signatures say what
//! they transform, and the timing must not change them.

use std::cell::RefCell;
use std::fmt;
use std::time::{Duration, Instant};

/// One row: a pass, the time spent in it (outside nested passes) and how
/// many times it ran.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PassTime {
    pub pass: &'static str,
    pub seconds: f64,
    pub runs: u32,
}

/// The rows of a recording, in the order the passes first finished.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassTimes {
    pub rows: Vec<PassTime>,
}

impl PassTimes {
    /// The sum of the rows.
    pub fn total_seconds(&self) -> f64 {
        self.rows.iter().map(|row| row.seconds).sum()
    }

    fn add(&mut self, pass: &'static str, time: Duration) {
        match self.rows.iter_mut().find(|row| row.pass == pass) {
            Some(row) => {
                row.seconds += time.as_secs_f64();
                row.runs += 1;
            }
            None => self.rows.push(PassTime { pass, seconds: time.as_secs_f64(), runs: 1 }),
        }
    }
}

impl fmt::Display for PassTimes {
    /// A table like LLVM's `-time-passes`: seconds, share of the total,
    /// runs and name, slowest first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_seconds();
        let mut rows = self.rows.clone();
        rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        writeln!(f, "===== Lanewise pass times (wall clock) =====")?;
        writeln!(f, "{:>10}  {:>6}  {:>5}  pass", "seconds", "share", "runs")?;
        for row in &rows {
            let share = if total > 0.0 { 100.0 * row.seconds / total } else { 0.0 };
            writeln!(f, "{:>10.4}  {:>5.1}%  {:>5}  {}", row.seconds, share, row.runs, row.pass)?;
        }
        write!(f, "{total:>10.4}  100.0%         total")
    }
}

/// A pass running: when it started and how long the passes inside it ran.
struct Open {
    started: Instant,
    nested: Duration,
}

#[derive(Default)]
struct Recorder {
    times: PassTimes,
    open: Vec<Open>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Runs `f`, recording the passes it marks with [`time`]; returns its
/// result and the times. A recording inside another adds nothing to the
/// outer one.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, PassTimes) {
    let outer = RECORDER.with(|recorder| recorder.replace(Some(Recorder::default())));
    let result = f();
    let recorded = RECORDER.with(|recorder| recorder.replace(outer));
    (result, recorded.map(|recorder| recorder.times).unwrap_or_default())
}

/// Runs the pass `f`, adding its time (without the passes it runs inside)
/// to the row `pass` of the recording, if one runs.
pub fn time<R>(pass: &'static str, f: impl FnOnce() -> R) -> R {
    let recording = RECORDER.with(|recorder| {
        let mut recorder = recorder.borrow_mut();
        let Some(recorder) = recorder.as_mut() else { return false };
        recorder.open.push(Open { started: Instant::now(), nested: Duration::ZERO });
        true
    });
    if !recording {
        return f();
    }
    let result = f();
    RECORDER.with(|recorder| {
        let mut recorder = recorder.borrow_mut();
        let Some(recorder) = recorder.as_mut() else { return };
        let Some(open) = recorder.open.pop() else { return };
        let elapsed = open.started.elapsed();
        recorder.times.add(pass, elapsed.saturating_sub(open.nested));
        if let Some(parent) = recorder.open.last_mut() {
            parent.nested += elapsed;
        }
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_passes_count_once_and_rows_keep_first_finish_order() {
        let ((), times) = record(|| {
            time("outer", || {
                time("inner", || {});
                time("inner", || {});
            });
            time("second", || {});
        });
        let passes: Vec<(&str, u32)> = times.rows.iter().map(|row| (row.pass, row.runs)).collect();
        assert_eq!(passes, [("inner", 2), ("outer", 1), ("second", 1)]);
        let outer = times.rows[1].seconds;
        assert!(outer >= 0.0 && times.total_seconds() >= outer);
    }

    #[test]
    fn without_a_recording_passes_only_run() {
        assert_eq!(time("alone", || 7), 7);
        let (value, times) = record(|| time("recorded", || 8));
        assert_eq!(value, 8);
        assert_eq!(times.rows.len(), 1);
        assert!(time("after", || true));
    }

    #[test]
    fn the_table_lists_every_row_and_the_total() {
        let times = PassTimes {
            rows: vec![
                PassTime { pass: "lift", seconds: 0.25, runs: 2 },
                PassTime { pass: "widen", seconds: 0.75, runs: 3 },
            ],
        };
        let table = times.to_string();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 5, "{table}");
        assert!(lines[2].ends_with("widen") && lines[2].contains("75.0%"), "{table}");
        assert!(lines[3].ends_with("lift") && lines[3].contains("    2  "), "{table}");
        assert!(lines[4].contains("1.0000") && lines[4].ends_with("total"), "{table}");
    }
}
