// Abort signals lent to the requests a call sends (MCP requests), reused once the call
// settles: Node 20 builds every AbortSignal with a prototype swap that costs more than the
// rest of a small MCP call. A lent signal records the listeners added while it is out, and
// giving it back removes them; a signal that was aborted, or got a listener while idle, is
// never lent again.
(function signals() {
  "use strict";
  const addListener = EventTarget.prototype.addEventListener;
  const removeListener = EventTarget.prototype.removeEventListener;
  // Idle signals kept for reuse; more calls than this in flight at once make new ones.
  const MAX_IDLE = 64;
  const idle = [];

  // { controller, listeners: [[type, listener, options]], out, spoiled }
  function makeLoan() {
    const loan = { controller: new AbortController(), listeners: [], out: false, spoiled: false };
    // An own method (not enumerable) that still adds the listener the usual way: requests
    // see a real AbortSignal, and the loan learns what to remove when it comes back.
    Object.defineProperty(loan.controller.signal, "addEventListener", {
      configurable: true,
      writable: true,
      value: function addEventListener(type, listener, options) {
        if (loan.out) loan.listeners.push([type, listener, options]);
        else loan.spoiled = true;
        return addListener.call(this, type, listener, options);
      },
    });
    return loan;
  }

  return {
    // A signal's loan for one call; its controller aborts the signal.
    lend() {
      let loan = idle.pop();
      while (loan !== undefined && loan.spoiled) loan = idle.pop();
      if (loan === undefined) loan = makeLoan();
      loan.out = true;
      return loan;
    },
    // The call settled: its requests are done with the signal.
    giveBack(loan) {
      loan.out = false;
      const signal = loan.controller.signal;
      for (const [type, listener, options] of loan.listeners.splice(0)) {
        try {
          removeListener.call(signal, type, listener, options);
        } catch (_) {
          loan.spoiled = true;
        }
      }
      if (!loan.spoiled && !signal.aborted && idle.length < MAX_IDLE) idle.push(loan);
    },
  };
})
