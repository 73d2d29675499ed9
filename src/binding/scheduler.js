// Drains the sessions' mailboxes on the Node thread one letter at a time, sessions in
// turn, letting each letter's microtasks run before the next; after SLICE_MS it yields to
// the event loop (setImmediate), so a burst of completions never blocks it in one piece.
(function createScheduler() {
  "use strict";
  const SLICE_MS = 4;
  // Sessions with letters waiting: their `take` functions (each returns false once its
  // mailbox is empty), each at most once.
  const ready = [];
  const queued = new WeakSet();
  let running = false;
  // Results pending in all sessions, and the timer that holds the loop open meanwhile.
  let pending = 0;
  let keepAlive = null;

  async function run() {
    running = true;
    const start = performance.now();
    while (ready.length > 0) {
      const take = ready.shift();
      let more = false;
      try {
        more = take();
      } catch (_) {
        // take() only dispatches to glue functions that catch their own callbacks'
        // errors; a throw here must not stop the other sessions' letters.
        more = true;
      }
      if (more) ready.push(take);
      else queued.delete(take);
      await null;
      if (ready.length > 0 && performance.now() - start >= SLICE_MS) {
        setImmediate(run);
        return;
      }
    }
    running = false;
  }

  return {
    // A result promise opened (+1) or settled (-1).
    hold(delta) {
      if (keepAlive === null) {
        keepAlive = setInterval(() => {}, 0x7fffffff);
        keepAlive.unref();
      }
      const before = pending;
      pending += delta;
      if (before === 0 && pending > 0) keepAlive.ref();
      else if (before > 0 && pending === 0) keepAlive.unref();
    },
    // Called (through the session's wake-up) when a mailbox receives its first letter.
    wake(take) {
      if (queued.has(take)) return;
      queued.add(take);
      ready.push(take);
      if (!running) run();
    },
  };
})();
