//! Writers that measure or cap what serde_json writes, so sizes are known without
//! materialising oversized values.

use std::io::{self, Write};

/// Bytes `write` produces, without materialising them.
pub(super) fn counted_len(write: impl FnOnce(&mut CountingWriter) -> io::Result<()>) -> usize {
    let mut counter = CountingWriter(0);
    let _ = write(&mut counter); // the counter never fails, so the count is complete
    counter.0
}

pub(super) struct CountingWriter(usize);

impl Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps the first `cap` bytes written and fails past them, which stops serde_json early.
pub(super) struct LimitedWriter {
    pub(super) buf: Vec<u8>,
    cap: usize,
}

impl LimitedWriter {
    pub(super) fn new(cap: usize) -> Self {
        let buf = Vec::new();
        LimitedWriter { buf, cap }
    }

    /// The kept bytes, minus a code point the cap cut in half (serde_json writes valid
    /// UTF-8, so only the tail can be incomplete).
    pub(super) fn into_text(mut self) -> String {
        let valid = std::str::from_utf8(&self.buf).map_or_else(|e| e.valid_up_to(), str::len);
        self.buf.truncate(valid);
        String::from_utf8(self.buf).unwrap_or_default()
    }
}

impl Write for LimitedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.buf.len();
        if room == 0 && !data.is_empty() {
            return Err(io::ErrorKind::WriteZero.into());
        }
        let n = room.min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
