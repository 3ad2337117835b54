//! Resetting a TCP connection: `SO_LINGER` with a zero timeout, so the socket's last close
//! sends an RST (and no FIN). std has no stable `set_linger`, hence `libc` here (on unix; the
//! other platforms close normally).

use std::net::{Shutdown, TcpStream};

/// Arms `stream` to reset on its last close, and wakes whoever reads it (`shutdown(Read)`
/// sends nothing to the peer). Every clone of the socket must then be dropped: the last drop
/// sends the RST.
pub fn arm(stream: &TcpStream) {
    set_linger_zero(stream);
    let _ = stream.shutdown(Shutdown::Read);
}

#[cfg(unix)]
fn set_linger_zero(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: the descriptor is open (borrowed from `stream`) and `linger` is a valid
    // `struct linger` of the length passed.
    let _ = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
}

#[cfg(not(unix))]
fn set_linger_zero(_stream: &TcpStream) {}
