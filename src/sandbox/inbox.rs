//! Frames from one sandbox, read without blocking: bytes are kept as they arrive and a
//! frame is handed out once whole. A length over the cap is refused before its body is
//! read, so the memory kept is at most the cap and one read's worth; an idle one keeps none.

use std::io;

/// Most bytes taken from the socket in one read: a hub's scratch buffer's size.
pub const READ_CHUNK: usize = 64 << 10;

pub struct Inbox {
    buffer: Vec<u8>,
    /// Where the unread bytes of `buffer` start.
    start: usize,
    cap: usize,
}

/// What a read found.
#[derive(Debug, PartialEq, Eq)]
pub enum Filled {
    /// Bytes arrived (some frames may be whole now).
    Some,
    /// Nothing to read now.
    Empty,
    /// The sandbox closed its output.
    End,
}

impl Inbox {
    pub fn new(cap: usize) -> Inbox {
        Inbox {
            buffer: Vec::new(),
            start: 0,
            cap,
        }
    }

    /// Reads what `fd` has now, at most `reads` chunks, through the hub's `scratch` (so
    /// a process's own buffer holds only what arrived, not a chunk's capacity).
    #[cfg(unix)]
    pub fn fill(&mut self, fd: i32, scratch: &mut [u8], reads: usize) -> io::Result<Filled> {
        if self.start > 0 && self.start == self.buffer.len() {
            // Thousands of idle sandboxes keep no read buffers.
            self.buffer = Vec::new();
            self.start = 0;
        }
        let mut filled = Filled::Empty;
        for _ in 0..reads.max(1) {
            // SAFETY: `scratch` is valid and writable for its whole length.
            let n = unsafe { libc::read(fd, scratch.as_mut_ptr().cast(), scratch.len()) };
            if n == 0 {
                return Ok(Filled::End);
            }
            let Ok(n) = usize::try_from(n) else {
                let error = io::Error::last_os_error();
                match error.kind() {
                    io::ErrorKind::WouldBlock => break,
                    io::ErrorKind::Interrupted => continue,
                    // A Unix socket whose peer ended with input unread reports this once
                    // what it sent is read: its end, as EOF was on a pipe.
                    io::ErrorKind::ConnectionReset => return Ok(Filled::End),
                    _ => return Err(error),
                }
            };
            self.buffer
                .extend_from_slice(&scratch[..n.min(scratch.len())]);
            filled = Filled::Some;
            if self.unread() > self.cap.saturating_add(4) {
                break;
            }
        }
        Ok(filled)
    }

    /// The next whole frame's body; `Err` names a length over the cap.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, String> {
        let unread = &self.buffer[self.start..];
        let Some(header) = unread.get(..4) else {
            return Ok(None);
        };
        let mut length = [0u8; 4];
        length.copy_from_slice(header);
        let length = u32::from_le_bytes(length) as usize;
        if length > self.cap {
            return Err(format!(
                "a frame of {length} bytes, over the session's {}-byte cap",
                self.cap
            ));
        }
        let Some(body) = unread.get(4..4 + length) else {
            return Ok(None);
        };
        let body = body.to_vec();
        self.start += 4 + length;
        if self.start > READ_CHUNK && self.start * 2 > self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        Ok(Some(body))
    }

    fn unread(&self) -> usize {
        self.buffer.len() - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(inbox: &mut Inbox, bytes: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
        inbox.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            let next = inbox.next_frame();
            let stop = !matches!(next, Ok(Some(_)));
            out.push(next);
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn frames_come_out_whole_across_reads() {
        let mut inbox = Inbox::new(16);
        let got = frames(&mut inbox, &[3, 0, 0, 0, b'a', b'b']);
        assert_eq!(got, vec![Ok(None)]);
        let got = frames(&mut inbox, &[b'c', 1, 0, 0, 0, b'd']);
        assert_eq!(
            got,
            vec![Ok(Some(b"abc".to_vec())), Ok(Some(b"d".to_vec())), Ok(None)]
        );
    }

    #[test]
    fn a_length_over_the_cap_is_refused_before_its_body() {
        let mut inbox = Inbox::new(16);
        let got = frames(&mut inbox, &(1u32 << 30).to_le_bytes());
        assert!(
            matches!(&got[0], Err(e) if e.contains("1073741824 bytes, over the session's 16-byte cap"))
        );
    }
}
