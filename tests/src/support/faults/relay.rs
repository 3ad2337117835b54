//! One connection through the fault proxy: the request stream relayed on a thread of its own,
//! the response stream on the connection's thread, the connection's [`Fault`] applied to one
//! of them; then both sockets closed the way the fault says (FIN, or RST).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::framing::FirstResponse;
use super::plan::Fault;
use super::proxy::Shared;
use super::reset;

/// Bytes read at a time, each way.
const CHUNK: usize = 16 * 1024;

/// How long reaching the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How the response side ended.
enum End {
    /// The server's stream ended (or a socket broke): FIN to the client.
    Close,
    /// The fault resets the client's connection.
    Reset,
}

/// Serves connection `id` under `fault` (drawn under plan `generation`) until both directions
/// end.
pub(crate) fn serve(shared: &Arc<Shared>, id: u64, client: TcpStream, fault: Fault, generation: u64) {
    if fault == Fault::AcceptThenClose {
        shared.injected(fault.name());
        return;
    }
    let _ = client.set_nodelay(true);
    let upstream = match TcpStream::connect_timeout(&shared.upstream, CONNECT_TIMEOUT) {
        Ok(upstream) => upstream,
        Err(_) => {
            reset::arm(&client);
            return;
        }
    };
    let _ = upstream.set_nodelay(true);
    if !shared.register(id, &[&client, &upstream]) {
        return;
    }
    let requests = match (client.try_clone(), upstream.try_clone()) {
        (Ok(from), Ok(to)) => {
            let (shared, fault) = (shared.clone(), fault.clone());
            thread::Builder::new()
                .name(format!("fault-proxy-{id}-up"))
                .spawn(move || relay_requests(&shared, from, to, &fault, generation))
                .ok()
        }
        _ => None,
    };
    let end = match requests {
        Some(_) => relay_responses(shared, &upstream, &client, &fault, generation),
        None => End::Close,
    };
    match end {
        End::Close => {
            let _ = client.shutdown(Shutdown::Write);
            let _ = client.shutdown(Shutdown::Read);
        }
        End::Reset => reset::arm(&client),
    }
    let _ = upstream.shutdown(Shutdown::Both);
    if let Some(requests) = requests {
        let _ = requests.join();
    }
    shared.unregister(id);
}

/// Client to server; with [`Fault::HalfCloseToServer`], a FIN to the server after `at` bytes
/// and the rest dropped.
fn relay_requests(
    shared: &Shared,
    mut client: TcpStream,
    mut upstream: TcpStream,
    fault: &Fault,
    generation: u64,
) {
    let cutoff = match *fault {
        Fault::HalfCloseToServer { at } => Some(at),
        _ => None,
    };
    let mut sent = 0usize;
    let mut half_closed = false;
    let half_close = |upstream: &TcpStream, half_closed: &mut bool| {
        if !*half_closed {
            *half_closed = true;
            // Counted first: whoever sees the FIN then sees the count.
            shared.injected(fault.name());
            let _ = upstream.shutdown(Shutdown::Write);
        }
    };
    if cutoff == Some(0) && shared.armed(generation) {
        half_close(&upstream, &mut half_closed);
    }
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) => {
                let _ = upstream.shutdown(Shutdown::Write);
                return;
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => {
                let _ = upstream.shutdown(Shutdown::Both);
                return;
            }
        };
        let take = match cutoff {
            Some(at) if half_closed || shared.armed(generation) => n.min(at.saturating_sub(sent)),
            _ => n,
        };
        if take > 0 && upstream.write_all(&buf[..take]).is_err() {
            return;
        }
        sent += take;
        if cutoff.is_some_and(|at| sent >= at) && shared.armed(generation) {
            half_close(&upstream, &mut half_closed);
        }
    }
}

/// Server to client, applying the response-side faults.
fn relay_responses(
    shared: &Shared,
    mut upstream: &TcpStream,
    mut client: &TcpStream,
    fault: &Fault,
    generation: u64,
) -> End {
    let trigger = match *fault {
        Fault::Reset { at } | Fault::Stall { at, .. } | Fault::HalfCloseToClient { at } => Some(at),
        _ => None,
    };
    let mut first = FirstResponse::default();
    let mut relayed = 0usize;
    let mut started = false;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match upstream.read(&mut buf) {
            Ok(0) => return End::Close,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return End::Close,
        };
        let chunk = &buf[..n];
        // A new plan disarms the fault (one that took effect has already ended the relay).
        let fault = if shared.armed(generation) { fault } else { &Fault::Pass };
        if let Some(at) = trigger.filter(|&at| relayed + n >= at && *fault != Fault::Pass) {
            if client.write_all(&chunk[..at - relayed]).is_err() {
                return End::Close;
            }
            shared.injected(fault.name());
            return match *fault {
                Fault::Stall { stall, .. } => {
                    shared.sleep(stall);
                    End::Reset
                }
                Fault::HalfCloseToClient { .. } => {
                    let _ = client.shutdown(Shutdown::Write);
                    // The rest of the response is read and dropped, so the server is not held up.
                    while matches!(upstream.read(&mut buf), Ok(n) if n > 0) {}
                    End::Close
                }
                _ => End::Reset,
            };
        }
        let written = match *fault {
            Fault::ResetAfterFirstResponse => match first.feed(chunk) {
                Some(end) => {
                    if client.write_all(&chunk[..end]).is_ok() {
                        shared.injected(fault.name());
                    }
                    return End::Reset;
                }
                None => client.write_all(chunk),
            },
            Fault::DelayHead { delay } if !started => {
                shared.injected(fault.name());
                if !shared.sleep(delay) {
                    return End::Close;
                }
                client.write_all(chunk)
            }
            Fault::Drip { pause } => {
                if !started {
                    shared.injected(fault.name());
                }
                drip(shared, client, chunk, pause)
            }
            _ => client.write_all(chunk),
        };
        if written.is_err() {
            return End::Close;
        }
        started = true;
        relayed += n;
    }
}

/// Writes `bytes` one at a time, `pause` after each.
fn drip(shared: &Shared, mut client: &TcpStream, bytes: &[u8], pause: Duration) -> io::Result<()> {
    for byte in bytes {
        client.write_all(std::slice::from_ref(byte))?;
        if !shared.sleep(pause) {
            return Err(io::ErrorKind::Interrupted.into());
        }
    }
    Ok(())
}
