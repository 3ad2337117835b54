//! [`Round`]: what one challenge (or refresh) aims for, and [`ScopeHistory`]: the scopes
//! asked for across rounds and the step-ups made in a row.

/// What the current round aims for.
#[derive(Debug, Default)]
pub(crate) struct Round {
    /// Scopes to request: the challenge's (union with earlier ones on a step-up), else `None`
    /// (the Protected Resource Metadata's `scopes_supported` is used).
    scopes: Option<Vec<String>>,
    /// Try the refresh token before a new authorization (consumed once the authorization
    /// server is known).
    try_refresh: bool,
}

impl Round {
    /// A round asking for `scopes` that tries the refresh token first when `try_refresh`.
    pub(crate) fn new(scopes: Option<Vec<String>>, try_refresh: bool) -> Self {
        Self { scopes, try_refresh }
    }

    /// The scopes the round asks for, when it names some.
    pub(crate) fn scopes(&self) -> Option<&[String]> {
        self.scopes.as_deref()
    }

    /// Whether the refresh token is to be tried first; the answer is given once.
    pub(crate) fn take_try_refresh(&mut self) -> bool {
        std::mem::take(&mut self.try_refresh)
    }

    /// Sets whether the refresh token is to be tried first.
    pub(crate) fn set_try_refresh(&mut self, try_refresh: bool) {
        self.try_refresh = try_refresh;
    }

    /// Whether `held` carries every scope the round asks for.
    pub(crate) fn covered_by(&self, held: &[String]) -> bool {
        self.scopes.as_ref().is_none_or(|wanted| wanted.iter().all(|s| held.contains(s)))
    }
}

/// The scopes the last authorization or grant asked for (a step-up adds to them), and the
/// step-ups made since the MCP server last accepted a token.
#[derive(Debug, Default)]
pub(crate) struct ScopeHistory {
    requested: Vec<String>,
    step_ups: u32,
}

impl ScopeHistory {
    /// The scopes last asked for.
    pub(crate) fn requested(&self) -> &[String] {
        &self.requested
    }

    /// Records the scopes just asked for.
    pub(crate) fn set_requested(&mut self, scopes: Vec<String>) {
        self.requested = scopes;
    }

    /// Counts one more step-up, unless `max` were made in a row: then `Err` with their number.
    pub(crate) fn step_up(&mut self, max: u32) -> Result<(), u32> {
        if self.step_ups >= max {
            return Err(self.step_ups);
        }
        self.step_ups += 1;
        Ok(())
    }

    /// The MCP server accepted a token: the step-up budget is whole again.
    pub(crate) fn reset_step_ups(&mut self) {
        self.step_ups = 0;
    }
}
