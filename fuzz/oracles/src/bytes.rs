//! A cursor that turns fuzz bytes into choices: numbers, picks from fixed lists and
//! strings. Exhausted input reads as zeros, so every byte string decodes to something
//! and short inputs decode to small cases.

pub(crate) struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | (u16::from(self.u8()) << 8)
    }

    pub fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | (u32::from(self.u16()) << 16)
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        if n <= 256 {
            usize::from(self.u8()) % n
        } else {
            self.u32() as usize % n
        }
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// The rest of the input, as raw bytes.
    pub fn rest(&mut self) -> &'a [u8] {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        self.pos = self.data.len();
        rest
    }

    /// A length-prefixed chunk of at most `max` bytes.
    pub fn chunk(&mut self, max: usize) -> &'a [u8] {
        let len = self.below(max + 1);
        let start = self.pos.min(self.data.len());
        let end = (start + len).min(self.data.len());
        self.pos = start + len;
        &self.data[start..end]
    }

    /// A string of at most `max` chars drawn from `alphabet` (one byte per char), or, when
    /// the first byte says so, the chunk's bytes as lossy UTF-8.
    pub fn string(&mut self, max: usize, alphabet: &[&str]) -> String {
        if self.u8().is_multiple_of(4) {
            return String::from_utf8_lossy(self.chunk(max)).replace('\u{FFFD}', "?");
        }
        let len = self.below(max + 1);
        (0..len).map(|_| self.pick(alphabet)).collect()
    }
}
