//! The child of the cell floor: reads each cell as a length-prefixed frame on stdin (a
//! socket), evaluates it in a QuickJS VM made before the frame came and writes the value
//! back as a frame. `fresh` makes the next cell's VM after answering, as a sandbox's spare.

use rquickjs::{Context, Runtime};
use std::io::{Read, Write};

fn vm() -> (Runtime, Context) {
    let runtime = Runtime::new().expect("runtime");
    let context = Context::full(&runtime).expect("context");
    (runtime, context)
}

fn main() {
    let fresh = std::env::args().nth(1).as_deref() == Some("fresh");
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut ready = vm();
    let mut header = [0u8; 4];
    loop {
        if input.read_exact(&mut header).is_err() {
            return;
        }
        let mut code = vec![0u8; u32::from_le_bytes(header) as usize];
        if input.read_exact(&mut code).is_err() {
            return;
        }
        let value = ready.1.with(|ctx| ctx.eval::<i32, _>(code).unwrap_or(-1));
        let text = value.to_string();
        let mut frame = (text.len() as u32).to_le_bytes().to_vec();
        frame.extend_from_slice(text.as_bytes());
        if output
            .write_all(&frame)
            .and_then(|()| output.flush())
            .is_err()
        {
            return;
        }
        if fresh {
            // The used VM is freed and the next made while Node takes the answer.
            ready = vm();
        }
    }
}
