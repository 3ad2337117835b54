//! `mcp call` with progress: a bar on stderr when stderr is a terminal (and the output is not
//! JSON), one `progress ...` line per notification with `--verbose` otherwise, nothing else.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpwire_tokio::calls::CallTool;
use mcpwire_tokio::types::CallToolResult;
use mcpwire_tokio::Progress;
use mcpwire_tokio::Server;
use serde_json::Value;

use crate::commands::{CliError, Settings};
use crate::output::{self, note};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// A bar on the terminal.
    Bar,
    /// Lines on stderr.
    Lines,
    /// Not shown (progress is not even asked for).
    Hidden,
}

impl Display {
    /// What the settings and the terminal call for.
    pub fn choose(json: bool, verbose: bool, stderr_is_terminal: bool) -> Self {
        match (stderr_is_terminal && !json, verbose) {
            (true, _) => Display::Bar,
            (false, true) => Display::Lines,
            (false, false) => Display::Hidden,
        }
    }
}

/// Calls `tool`, asking for progress when it will be shown.
pub async fn call_showing_progress(
    settings: &Settings,
    server: &Server,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, CliError> {
    let display = Display::choose(settings.json, settings.verbose, std::io::stderr().is_terminal());
    let call = CallTool::new(tool, arguments);
    match display {
        Display::Hidden => Ok(server.send(call).await?),
        Display::Lines => {
            let report = |p: Progress| note(&output::progress_line(&p));
            Ok(server.send(call).on_progress(report).await?)
        }
        Display::Bar => {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{spinner} {bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            let shown = bar.clone();
            let report = move |p: Progress| update(&shown, &p);
            let outcome = server.send(call).on_progress(report).await;
            bar.finish_and_clear();
            Ok(outcome?)
        }
    }
}

/// Moves the bar to a notification's values (fractions are scaled to thousandths).
fn update(bar: &ProgressBar, p: &Progress) {
    let scale =
        if p.progress.fract() == 0.0 && p.total.is_none_or(|t| t.fract() == 0.0) { 1.0 } else { 1000.0 };
    let to_u64 = |v: f64| if v.is_finite() && v > 0.0 { (v * scale).min(u64::MAX as f64) as u64 } else { 0 };
    if let Some(total) = p.total {
        bar.set_length(to_u64(total));
    }
    bar.set_position(to_u64(p.progress));
    if let Some(message) = &p.message {
        bar.set_message(output::one_line(message, 60));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_follows_terminal_json_and_verbose() {
        assert_eq!(Display::choose(false, false, true), Display::Bar);
        assert_eq!(Display::choose(true, false, true), Display::Hidden);
        assert_eq!(Display::choose(true, true, true), Display::Lines);
        assert_eq!(Display::choose(false, true, false), Display::Lines);
        assert_eq!(Display::choose(false, false, false), Display::Hidden);
    }

    #[test]
    fn the_bar_follows_progress() {
        let bar = ProgressBar::hidden();
        update(&bar, &Progress { progress: 2.0, total: Some(5.0), message: Some("two".into()) });
        assert_eq!((bar.position(), bar.length()), (2, Some(5)));
        assert_eq!(bar.message(), "two");
        update(&bar, &Progress { progress: 0.5, total: Some(1.0), message: None });
        assert_eq!((bar.position(), bar.length()), (500, Some(1000)));
        update(&bar, &Progress { progress: f64::NAN, total: None, message: None });
        assert_eq!(bar.position(), 0);
    }
}
