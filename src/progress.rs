//! Progress reporting handle, so engines report work without knowing about terminals.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar that draws to stderr only when stderr is a terminal (hidden in tests,
/// CI logs and pipes), so stages can always report and never pollute output.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `len` work items labelled `stage`; hidden unless stderr is a terminal.
    pub fn new(stage: &str, len: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), Self::target());
        bar.set_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(stage.to_string());
        Progress { bar }
    }

    /// A bar that never draws, for library callers and tests.
    pub fn hidden() -> Self {
        Progress {
            bar: ProgressBar::hidden(),
        }
    }

    fn target() -> ProgressDrawTarget {
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        }
    }

    /// Change the total once it is known.
    pub fn set_len(&self, len: u64) {
        self.bar.set_length(len);
    }

    /// Count `n` finished items.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Short status text beside the bar.
    pub fn set_message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    /// Remove the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
