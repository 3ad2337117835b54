//! Switches that keep the task simulation off paths where the core had a known bug (each listed
//! in `task_book`). `true` steers the simulation around the path; `false` checks it. Each
//! switch says whether its bug is fixed and why it is set as it is.

/// Core bug (listed in `task_book`): a `TaskResult` wait for a 2026-07-28 task that
/// asks for input fails with `InvalidResponse` ("input_required is only allowed for tools/call,
/// prompts/get and resources/read"). While it stands, calls the host starts as tasks (which it
/// waits for with `TaskResult`) carry `"simNoInput": true`, and 2026-07-28 servers give their
/// tasks no input rounds.
///
/// The core bug itself is fixed (`a_task_wait_takes_input_like_the_call` in the core's task
/// tests); with this switch off, the HTTP sweep still flags a `tasks/update` followed by a
/// `tasks/get` without its answers on a `TaskResult` wait (debug default sweep, seed 122):
/// not triaged yet (a real path, or the invariant not knowing a second wait on the same task).
pub const AVOID_WAIT_INPUT_BUG: bool = true;

/// Core bug (listed in `task_book`): over HTTP a `CallToolAsTask` is sent again after a
/// transport failure or a 5xx (with retries configured) and after a legacy session expired,
/// where a plain `CallTool` never is (a call is not idempotent: the server may start the task
/// twice). While it stands, the HTTP link lets those calls (`"simAsTask": true`) go out again,
/// counting it as the path `as_task_call_resent`.
///
/// Fixed in the core (a call started as a task is never retried); off, so the sim checks it.
pub const AVOID_AS_TASK_RETRY_BUG: bool = false;

/// Core bug (listed in `task_book`): a status notification saying `input_required`
/// with new keys, arriving while a `tasks/get` is in flight, has the host asked; its answer goes
/// out in `tasks/update` while the poll is still in flight, the poll's answer is then taken for
/// the update's acknowledgment and the acknowledgment for a status, and the call fails with
/// `InvalidResponse` ("unknown status none"). While it stands, 2026-07-28 servers do not push
/// `input_required` notifications (nothing else sends a poll while the host is being asked).
///
/// Fixed in the core (answers wait for the poll in flight); off, so the sim checks it.
pub const AVOID_UPDATE_WHILE_POLLING_BUG: bool = false;

/// Core bug (listed in `task_book`): `tasks/cancel` (a cancel, a timeout or a close of a
/// call whose task came from an expired legacy session) is sent at once while the next session
/// is still being set up: before `initialize` completes, and without an `Mcp-Session-Id`. While
/// it stands, the HTTP link lets such a POST through, counting the path
/// `task_cancel_while_handshaking`.
///
/// Fixed in the core (tasks/cancel only on a ready session); off, so the sim checks it.
pub const AVOID_CANCEL_WHILE_HANDSHAKING_BUG: bool = false;

/// Core bug (listed in `task_book`): over 2026-07-28 HTTP a `tasks/update` whose
/// response stream breaks is re-issued as a `tasks/get` (its answers were taken when it was first
/// built), and after a transport failure or a 5xx a retried one is too; the server never gets the
/// answers, the task stays `input_required`, the client does not ask again, and the call waits
/// until it times out. While it stands, the HTTP link keeps network faults off `tasks/update`
/// exchanges.
///
/// Fixed in the core (an unacknowledged update is sent again with its answers); off, so the sim checks it.
pub const AVOID_UPDATE_REISSUE_BUG: bool = false;
