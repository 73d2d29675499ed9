// Guest prelude: installs a cell's runtime globals once per VM, before user code, and
// captures every built-in it relies on, so later pollution cannot change the bridge.
// `native` holds this VM's Rust functions; the returned object is Rust's internal surface.
(function (native) {
  "use strict";
  const O = Object;
  const freeze = O.freeze;
  const defineProperty = O.defineProperty;
  const apply = Reflect.apply;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseReject = Promise.reject;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const NumberCtor = Number;
  const ArrayIsArray = Array.isArray;
  const BigIntCtor = BigInt;
  const ProxyCtor = Proxy;
  const bigintValueOf = BigInt.prototype.valueOf;
  const bigintToString = BigInt.prototype.toString;
  const mapProto = Map.prototype;
  const mapGet = mapProto.get;
  const mapSet = mapProto.set;
  const mapHas = mapProto.has;
  const mapDelete = mapProto.delete;
  const arrayJoin = Array.prototype.join;
  const arrayPush = Array.prototype.push;
  const arrayMap = Array.prototype.map;
  const isFiniteNumber = NumberCtor.isFinite;
  const mathFloor = Math.floor;
  const global = globalThis;
  const UNAWAITED =
    "[Unawaited Promise: use await or Promise.all(...) before emitting or returning values.]";

  // QuickJS implements V8's `Error.prepareStackTrace`: each CallSite's `getFunction()`
  // would hand the guest the function of every frame, runtime ones included (the settle
  // function under a `then` getter, the timer firer, the natives). It answers `undefined`
  // here, as V8 does for strict frames; the prototype is shared by every CallSite.
  (function closeCallSites() {
    const errorCtor = ErrorCtor;
    const previous = errorCtor.prepareStackTrace;
    let proto = null;
    errorCtor.prepareStackTrace = (e, sites) => {
      proto = sites.length > 0 ? O.getPrototypeOf(sites[0]) : null;
      return "";
    };
    try {
      void new errorCtor().stack;
    } finally {
      errorCtor.prepareStackTrace = previous;
    }
    if (proto === null) throw new TypeErrorCtor("code mode runtime: no CallSite prototype");
    defineProperty(proto, "getFunction", {
      value: function getFunction() {
        return undefined;
      },
      writable: false,
      enumerable: false,
      configurable: false,
    });
    freeze(proto);
  })();

  // QuickJS's `performance.timeOrigin` is the host's monotonic clock (its uptime). The
  // guest gets the wall-clock origin a browser gives, which `Date.now()` already tells.
  (function wallClockPerformance() {
    const builtIn = global.performance;
    const builtInNow = builtIn.now;
    const now = () => apply(builtInNow, builtIn, []);
    const performance = freeze({ now: () => now(), timeOrigin: Date.now() - now() });
    defineProperty(global, "performance", { value: performance, writable: true, enumerable: false, configurable: true });
  })();

  const pending = new Map();
  const timers = new Map();
  const unhandled = new Map();
  const mapEntries = mapProto.entries;
  const mapIteratorNext = O.getPrototypeOf(new Map().entries()).next;
  const handleMeta = new WeakMap();
  const weakGet = WeakMap.prototype.get;
  const weakHas = WeakMap.prototype.has;
  const weakSet = WeakMap.prototype.set;

  function isPromise(v) {
    try {
      return v instanceof PromiseCtor;
    } catch (_) {
      return false;
    }
  }

  function isBoxedBigInt(v) {
    try {
      return v instanceof BigIntCtor;
    } catch (_) {
      return false;
    }
  }

  function isError(v) {
    try {
      return v instanceof ErrorCtor;
    } catch (_) {
      return false;
    }
  }

  // The JSON bridge adapter (docs/contract.md, Bridge): what a guest value becomes for the host.
  function replacer(key, v) {
    switch (typeof v) {
      case "bigint":
        return apply(bigintToString, v, []);
      case "function":
        return apply(weakHas, handleMeta, [v]) ? apply(weakGet, handleMeta, [v]) : undefined;
      case "object":
        if (v === null) return null;
        if (isPromise(v)) return UNAWAITED;
        if (isError(v)) return { name: StringCtor(v.name), message: StringCtor(v.message) };
        // A boxed BigInt (`Object(1n)`) is unboxed after the replacer runs and would then
        // throw; it becomes its decimal string like a primitive one.
        if (isBoxedBigInt(v)) {
          try {
            return apply(bigintToString, apply(bigintValueOf, v, []), []);
          } catch (_) {
            return v;
          }
        }
        return v;
      default:
        return v;
    }
  }

  function toJsonText(value) {
    if (value === undefined) return "null";
    try {
      const text = stringify(value, replacer);
      return text === undefined ? "null" : text;
    } catch (e) {
      // Out of memory is the cell's failure, not a property of the value.
      if (isError(e) && e.message === "out of memory") throw e;
      return quoteJson("[Unserializable value: " + describeThrown(e) + "]");
    }
  }

  // A JSON string literal built without JSON.stringify, for the fallbacks: a guest can
  // break QuickJS's own stringify (a getter on `Array.prototype[0]` makes it throw), and
  // its failure must still be reported. Long texts are cut (the result budget would).
  const QUOTE_LIMIT = 65536;
  const charCodeAt = StringCtor.prototype.charCodeAt;
  const stringSlice = StringCtor.prototype.slice;
  const hexDigits = "0123456789abcdef";
  function quoteJson(text) {
    const source = typeof text === "string" ? text : "";
    const end = source.length < QUOTE_LIMIT ? source.length : QUOTE_LIMIT;
    let out = '"';
    let from = 0;
    for (let i = 0; i < end; i++) {
      const c = apply(charCodeAt, source, [i]);
      let escaped;
      if (c === 34) escaped = '\\"';
      else if (c === 92) escaped = "\\\\";
      else if (c < 32) escaped = "\\u00" + hexDigits[c >> 4] + hexDigits[c & 15];
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
        const next = apply(charCodeAt, source, [i + 1]);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
        else escaped = "\\ufffd";
      } else if (c >= 0xd800 && c <= 0xdfff) escaped = "\\ufffd";
      if (escaped !== undefined) {
        out += apply(stringSlice, source, [from, i]) + escaped;
        from = i + 1;
      }
    }
    return out + apply(stringSlice, source, [from, end]) + '"';
  }

  function describeThrown(e) {
    try {
      if (isError(e)) return StringCtor(e.message);
      return StringCtor(e);
    } catch (_) {
      return "unknown error";
    }
  }

  // "Name: message" plus the raw stack; Rust keeps only user frames and rebases them.
  function formatError(e) {
    let message = "Uncaught exception (its message could not be read)";
    let stack = "";
    let code = null;
    try {
      if (isError(e)) {
        const head = StringCtor(e.name) + ": " + StringCtor(e.message);
        const trace = typeof e.stack === "string" ? e.stack : "";
        const own = typeof e.code === "string" ? e.code : null;
        message = head;
        stack = trace;
        code = own;
      } else {
        message = "Uncaught " + formatValue(e);
      }
    } catch (_) {
      // Unreadable: the default message stands.
    }
    try {
      return stringify({ message: message, stack: stack, code: code });
    } catch (_) {
      const codeJson = code === null ? "null" : quoteJson(code);
      return '{"message":' + quoteJson(message) + ',"stack":' + quoteJson(stack) + ',"code":' + codeJson + "}";
    }
  }

  function formatValue(v) {
    if (typeof v === "string") return v;
    if (v !== null && typeof v === "object") return toJsonText(v);
    try {
      return StringCtor(v);
    } catch (_) {
      return toJsonText(v);
    }
  }

  function bridge(method, target, input) {
    const id = native.call(method, target, toJsonText(input));
    return new PromiseCtor((resolve, reject) => {
      apply(mapSet, pending, [id, { resolve, reject }]);
    });
  }

  function makeHostError(payload) {
    const err = new ErrorCtor(StringCtor(payload.message));
    defineProperty(err, "code", { value: payload.code || "tool_error", enumerable: true, writable: true, configurable: true });
    defineProperty(err, "effectStatus", { value: "unknown", enumerable: true, writable: true, configurable: true });
    return err;
  }

  function define(name, value) {
    defineProperty(global, name, { value, writable: false, enumerable: false, configurable: false });
  }

  // ---- output ----
  define("text", function text(value) {
    native.output(0, formatValue(value));
  });
  define("json", function json(value) {
    native.output(1, toJsonText(value));
  });
  function consoleMethod(prefix) {
    return function (...args) {
      native.console(prefix + apply(arrayJoin, apply(arrayMap, args, [formatValue]), [" "]));
    };
  }
  define(
    "console",
    freeze({
      log: consoleMethod(""),
      info: consoleMethod("[info] "),
      warn: consoleMethod("[warn] "),
      error: consoleMethod("[error] "),
      debug: consoleMethod("[debug] "),
    })
  );

  // ---- timers (host-bridged: they count as pending host work) ----
  define("setTimeout", function setTimeout(callback, delay, ...args) {
    if (typeof callback !== "function") throw new TypeErrorCtor("setTimeout callback must be a function");
    let ms = NumberCtor(delay);
    ms = isFiniteNumber(ms) ? mathFloor(ms) : 0;
    if (ms < 0) ms = 0;
    const id = native.timer(ms);
    apply(mapSet, timers, [id, { callback, args }]);
    return id;
  });
  define("clearTimeout", function clearTimeout(id) {
    if (apply(mapHas, timers, [id])) {
      apply(mapDelete, timers, [id]);
      native.clearTimer(id);
    }
  });

  define("yield_control", function yield_control(reason) {
    const text = reason === undefined || reason === null ? null : StringCtor(reason);
    const id = native.yieldControl(text);
    return new PromiseCtor((resolve, reject) => {
      apply(mapSet, pending, [id, { resolve, reject }]);
    });
  });


  // ---- web globals: loaded on first use (see web.js) ----
  let web = null;
  function webClass(name) {
    if (web === null) web = native.loadWeb(native);
    return web[name];
  }
  for (const name of ["URL", "URLSearchParams", "TextEncoder", "TextDecoder"]) {
    defineProperty(global, name, {
      get() {
        return webClass(name);
      },
      enumerable: false,
      configurable: false,
    });
  }

  // ---- API virtual files (declarations rendered by Rust on read) ----
  define(
    "API",
    freeze({
      list(prefix) {
        return parse(native.apiList(prefix === undefined || prefix === null ? "" : StringCtor(prefix)));
      },
      read(path) {
        if (typeof path !== "string") throw new TypeErrorCtor("invalid API file path");
        return parse(native.apiRead(path));
      },
    })
  );

  // ---- catalog handles (installed when a warm VM is bound to its session) ----
  // Handles are built on first use: a catalog of 1,000 tools must not cost every cell
  // 1,000 function objects. Each global is a getter (no setter: not writable, not
  // configurable) that builds its handle once, so identity holds across globals,
  // `catalog.search` and `catalog.all()`.
  function makeHandle(name, meta) {
    // A plain function returning the bridge promise: an async wrapper would add a promise
    // and two job turns to every call. A synchronous failure still becomes a rejection.
    const handle = {
      [name]: function (input) {
        try {
          return bridge("tool", name, input === undefined ? null : input);
        } catch (e) {
          return apply(promiseReject, PromiseCtor, [e]);
        }
      },
    }[name];
    for (const key of O.keys(meta)) {
      defineProperty(handle, key, { value: meta[key], enumerable: true, writable: false, configurable: false });
    }
    defineProperty(handle, "describe", {
      value: async function describe() {
        return parse(native.describe(name));
      },
    });
    defineProperty(handle, "toJSON", { value: () => meta });
    apply(weakSet, handleMeta, [handle, meta]);
    return freeze(handle);
  }

  function installTools(config) {
    // Null when the session has no surface and no MCP server: surfaces.js is never loaded.
    if (config.surfaces !== undefined && config.surfaces !== null) installSurfaces(config.surfaces, config.mcp === undefined ? null : config.mcp);
    const names = config.tools;
    const built = new Map();
    function handleFor(name) {
      let handle = apply(mapGet, built, [name]);
      if (handle === undefined) {
        handle = makeHandle(name, freeze(parse(native.toolMeta(name))));
        apply(mapSet, built, [name, handle]);
      }
      return handle;
    }
    for (const name of names) {
      defineProperty(global, name, { get: () => handleFor(name), enumerable: false, configurable: false });
    }
    let allHandles = null;
    define(
      "catalog",
      freeze({
        search: async function search(query, options) {
          if (typeof query !== "string") throw new TypeErrorCtor("search query must be a string.");
          let limit = null;
          if (options !== undefined && options !== null && options.limit !== undefined) {
            limit = options.limit;
            if (typeof limit !== "number" || !NumberCtor.isInteger(limit) || limit < 1) {
              throw new TypeErrorCtor("limit must be a positive integer.");
            }
          }
          const found = parse(native.search(query, limit === null ? 0 : limit));
          for (let i = 0; i < found.length; i++) found[i] = handleFor(found[i]);
          return freeze(found);
        },
        all: function all() {
          if (allHandles === null) allHandles = freeze(apply(arrayMap, names, [handleFor]));
          return allHandles;
        },
      })
    );
  }


  // ---- host surfaces (surfaces.js, loaded only for sessions that have any) ----
  function installSurfaces(surfaces, mcp) {
    const kit = freeze({ O, freeze, defineProperty, apply, parse, StringCtor, TypeErrorCtor, ErrorCtor, ArrayIsArray, arrayJoin, arrayMap, bridge, define, formatValue, native, PromiseCtor, promiseReject, ProxyCtor });
    native.loadSurfaces(kit)(surfaces, mcp);
  }

  // ---- the internal surface Rust drives ----
  return freeze({
    installTools,
    // Rust calls the user's async function itself (so no prelude frame sits under user
    // frames in a guest-visible stack) and hands the promise here.
    watch(promise) {
      // `then` looks up promise.constructor[Symbol.species], which the guest can replace
      // with a throwing getter; an own `constructor: undefined` makes it use the intrinsic
      // Promise. The guest never sees this promise, so the property is invisible to it.
      defineProperty(promise, "constructor", { value: undefined });
      apply(promiseThen, promise, [
        (v) => native.finish(true, toJsonText(v === undefined ? null : v)),
        (e) => native.finish(false, formatError(e)),
      ]);
    },
    // Says whether a call was waiting: a replay's recorded answers must all land.
    settle(id, ok, text) {
      const entry = apply(mapGet, pending, [id]);
      if (entry === undefined) return false;
      apply(mapDelete, pending, [id]);
      if (ok) entry.resolve(parse(text));
      else entry.reject(makeHostError(parse(text)));
      return true;
    },
    refuse(id, message) {
      const entry = apply(mapGet, pending, [id]);
      if (entry === undefined) return;
      apply(mapDelete, pending, [id]);
      entry.reject(new ErrorCtor(StringCtor(message)));
    },
    fireTimer(id) {
      const timer = apply(mapGet, timers, [id]);
      if (timer === undefined) return false;
      apply(mapDelete, timers, [id]);
      try {
        apply(timer.callback, undefined, timer.args);
      } catch (e) {
        native.fail(formatError(e));
      }
      return true;
    },
    track(promise, reason, handled) {
      if (handled) apply(mapDelete, unhandled, [promise]);
      else apply(mapSet, unhandled, [promise, reason]);
    },
    hasUnhandled() {
      return !apply(mapIteratorNext, apply(mapEntries, unhandled, []), []).done;
    },
    firstUnhandled() {
      const iterator = apply(mapEntries, unhandled, []);
      const step = apply(mapIteratorNext, iterator, []);
      return step.done ? null : formatError(step.value[1]);
    },
  });
});
