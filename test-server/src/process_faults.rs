//! Process faults a test server can stage on itself, for the client's fault soak: a slow
//! writer of long lines (`--slow-write-ms`, so a kill lands in the middle of a large answer), stdout closed
//! while the process lives on (`--close-stdout-after`), and stdin no longer read
//! (`--stop-reading-after`, so the client's writes fill the pipe).

use std::io::{self, Write};
use std::time::Duration;

/// The most one paced write passes on at a time.
const PIECE: usize = 64 * 1024;

/// A writer passing at most 64 KiB per write, pausing after each piece that has more behind
/// it (so short lines are not slowed down, long ones are written over a while).
pub struct Paced<W> {
    inner: W,
    pause: Duration,
}

impl<W> Paced<W> {
    /// `inner`, paced by `pause`.
    pub fn new(inner: W, pause: Duration) -> Self {
        Paced { inner, pause }
    }
}

impl<W: Write> Write for Paced<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(&buf[..buf.len().min(PIECE)])?;
        if n < buf.len() {
            self.inner.flush()?;
            std::thread::sleep(self.pause);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Closes this process's stdout (descriptor 1): the client reads the end of the stream while
/// the process lives on; later writes fail (std's stdout then discards them).
pub fn close_stdout() {
    let _ = io::stdout().flush();
    #[cfg(unix)]
    {
        use std::os::fd::{FromRawFd, OwnedFd};
        // SAFETY: descriptor 1 is open (the client's pipe) and nothing else owns it as an
        // `OwnedFd`; `io::stdout()` only borrows the number, and writes to it after the close
        // fail with EBADF, which std's stdout treats as a sink.
        drop(unsafe { OwnedFd::from_raw_fd(1) });
    }
}

/// Never returns: the process stops reading stdin but lives on (until killed).
pub fn stop_reading() -> ! {
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paced_writes_pass_everything_in_pieces() {
        let mut paced = Paced::new(Vec::new(), Duration::ZERO);
        let big = vec![b'x'; PIECE * 2 + 5];
        assert_eq!(paced.write(&big).unwrap(), PIECE);
        paced.write_all(&big[PIECE..]).unwrap();
        assert_eq!(paced.inner, big);
    }
}
