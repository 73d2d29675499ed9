// Guest prelude: installs the runtime globals of a code-mode cell.
// It runs once per VM, before user code, and captures every built-in it relies on, so a
// guest that later pollutes prototypes or globals cannot change how the bridge behaves.
// `native` holds the Rust functions of this VM; the returned object is the internal
// surface Rust drives (settle, fire timers, start the cell), kept off the guest's reach.
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

  // The JSON bridge adapter (SPEC §5): what any guest value becomes on the host side.
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
      return stringify("[Unserializable value: " + describeThrown(e) + "]");
    }
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
    try {
      if (isError(e)) {
        let head = StringCtor(e.name) + ": " + StringCtor(e.message);
        const stack = typeof e.stack === "string" ? e.stack : "";
        return stringify({ message: head, stack: stack, code: typeof e.code === "string" ? e.code : null });
      }
      return stringify({ message: "Uncaught " + formatValue(e), stack: "", code: null });
    } catch (inner) {
      return stringify({ message: "Uncaught exception (its message could not be read)", stack: "", code: null });
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
    if (config.surfaces !== undefined) installSurfaces(config.surfaces, config.mcp === undefined ? null : config.mcp);
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


  // ---- host surfaces: plugin namespaces, MCP, nodes, skills, Swarm ----
  // Every object here has a null prototype and is frozen, so no path walks into
  // Object.prototype and nothing a guest assigns can redirect a later call.
  const create = O.create;
  const arrayIncludes = Array.prototype.includes;
  const stringTrim = String.prototype.trim;

  function tree() {
    return create(null);
  }

  function deepFreeze(node) {
    for (const key of O.keys(node)) {
      const child = node[key];
      if (child !== null && typeof child === "object") deepFreeze(child);
    }
    return freeze(node);
  }

  function nonEmptyString(value) {
    return typeof value === "string" && apply(stringTrim, value, []) !== "";
  }

  function surfaceFn(key) {
    return async function (args) {
      return bridge("surface", key, args === undefined ? null : args);
    };
  }

  function installNamespaces(list) {
    if (list.length === 0) return;
    const all = tree();
    for (const ns of list) {
      const root = tree();
      for (const leaf of ns.leaves) {
        let node = root;
        const path = leaf.path;
        for (let i = 0; i < path.length - 1; i++) {
          let next = node[path[i]];
          if (next === undefined) {
            next = tree();
            node[path[i]] = next;
          }
          node = next;
        }
        node[path[path.length - 1]] = surfaceFn(leaf.key);
      }
      deepFreeze(root);
      define(ns.name, root);
      all[ns.name] = root;
    }
    define("namespaces", freeze(all));
  }

  function mcpTool(key) {
    return async function (input) {
      if (arguments.length > 1 || (input !== undefined && (input === null || typeof input !== "object" || ArrayIsArray(input)))) {
        throw new TypeErrorCtor("MCP namespace tools accept one object argument.");
      }
      return bridge("surface", key, input === undefined ? {} : input);
    };
  }

  function mcpServer(server) {
    const id = server.id;
    const prefix = "mcp/" + id + "/";
    const has = (op) => apply(arrayIncludes, server.ops, [op]);
    const node = tree();
    node.$api = async function $api(toolName, options) {
      if (toolName !== undefined && toolName !== null && typeof toolName !== "string") {
        throw new TypeErrorCtor("$api toolName must be a string.");
      }
      const schema = options !== undefined && options !== null && options.schema === true;
      return parse(native.mcpApi(id, toolName === undefined ? null : toolName, schema));
    };
    for (const tool of server.tools) node[tool] = mcpTool(prefix + tool);
    if (has("resources.list") || has("resources.read")) {
      const resources = tree();
      if (has("resources.list")) resources.list = async function list() {
        return bridge("surface", prefix + "resources.list", {});
      };
      if (has("resources.read")) resources.read = async function read(input) {
        if (input === null || typeof input !== "object" || typeof input.uri !== "string") {
          throw new TypeErrorCtor("resources.read takes { uri: string }.");
        }
        return bridge("surface", prefix + "resources.read", { uri: input.uri });
      };
      node.resources = freeze(resources);
    }
    if (has("prompts.list") || has("prompts.get")) {
      const prompts = tree();
      if (has("prompts.list")) prompts.list = async function list() {
        return bridge("surface", prefix + "prompts.list", {});
      };
      if (has("prompts.get")) prompts.get = async function get(input) {
        if (input === null || typeof input !== "object" || typeof input.name !== "string") {
          throw new TypeErrorCtor("prompts.get takes { name: string, arguments?: object }.");
        }
        const args = input.arguments === undefined || input.arguments === null ? undefined : input.arguments;
        return bridge("surface", prefix + "prompts.get", { name: input.name, arguments: args });
      };
      node.prompts = freeze(prompts);
    }
    return freeze(node);
  }

  // Server objects are built on first use, like tool handles.
  function installMcp(servers) {
    if (servers === null) return;
    const root = tree();
    defineProperty(root, "$api", {
      value: async function $api() {
        return parse(native.mcpApi("", null, false));
      },
      enumerable: true,
    });
    for (const server of servers) {
      let built = null;
      defineProperty(root, server.id, {
        get() {
          if (built === null) built = mcpServer(server);
          return built;
        },
        enumerable: true,
      });
    }
    define("MCP", freeze(root));
  }

  function nodeHandle(info) {
    const id = StringCtor(info.id);
    const commands = ArrayIsArray(info.commands) ? info.commands : [];
    const invoke = async function invoke(command, params) {
      if (!nonEmptyString(command)) throw new TypeErrorCtor("node.invoke command must be a non-empty string.");
      return bridge("surface", "nodes/invoke", { nodeId: id, command, params: params === undefined ? null : params });
    };
    const handle = { id, name: typeof info.name === "string" ? info.name : id, invoke };
    if (apply(arrayIncludes, commands, ["fs.listDir"])) {
      handle.listDir = async function listDir(path) {
        if (typeof path !== "string") throw new TypeErrorCtor("listDir path must be a string.");
        return invoke("fs.listDir", { path });
      };
    }
    return freeze(handle);
  }

  function installNodes() {
    const list = async function list() {
      return bridge("surface", "nodes/list", null);
    };
    const get = async function get(idOrName) {
      if (!nonEmptyString(idOrName)) throw new TypeErrorCtor("nodes.get id or name must be a non-empty string.");
      const all = await list();
      const paired = ArrayIsArray(all) ? all : [];
      if (paired.length === 0) throw new ErrorCtor("no paired nodes");
      const isNode = (n) => n !== null && typeof n === "object";
      let found = undefined;
      for (const n of paired) if (found === undefined && isNode(n) && n.id === idOrName) found = n;
      for (const n of paired) if (found === undefined && isNode(n) && n.name === idOrName) found = n;
      if (found === undefined) {
        const ids = apply(arrayMap, paired, [(n) => (isNode(n) ? StringCtor(n.id) : "?")]);
        throw new ErrorCtor('node "' + idOrName + '" is not paired (paired node ids: ' + apply(arrayJoin, ids, [", "]) + ")");
      }
      return nodeHandle(found);
    };
    define("nodes", freeze({ list, get }));
  }

  function installSkills() {
    define(
      "skills",
      freeze({
        list: async function list() {
          return bridge("surface", "skills/list", null);
        },
        read: async function read(name, relativePath) {
          if (!nonEmptyString(name)) throw new TypeErrorCtor("skills.read name must be a non-empty string.");
          if (relativePath !== undefined && relativePath !== null && typeof relativePath !== "string") {
            throw new TypeErrorCtor("skills.read relativePath must be a string.");
          }
          return bridge("surface", "skills/read", { name, relativePath: typeof relativePath === "string" ? relativePath : null });
        },
      })
    );
  }

  function installSwarm(swarm) {
    define(
      "agents",
      freeze({
        run: async function run(spec) {
          return bridge("surface", "swarm/run", spec === undefined ? null : spec);
        },
      })
    );
    define("phase", async function phase(title) {
      if (swarm.phase) await bridge("surface", "swarm/phase", formatValue(title));
    });
    define("log", async function log(message) {
      if (swarm.log) await bridge("surface", "swarm/log", formatValue(message));
    });
  }

  function installSurfaces(surfaces, mcp) {
    installNamespaces(surfaces.namespaces);
    installMcp(mcp);
    if (surfaces.nodes) installNodes();
    if (surfaces.skills) installSkills();
    if (surfaces.swarm !== null) installSwarm(surfaces.swarm);
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
    settle(id, ok, text) {
      const entry = apply(mapGet, pending, [id]);
      if (entry === undefined) return;
      apply(mapDelete, pending, [id]);
      if (ok) entry.resolve(parse(text));
      else entry.reject(makeHostError(parse(text)));
    },
    fireTimer(id) {
      const timer = apply(mapGet, timers, [id]);
      if (timer === undefined) return;
      apply(mapDelete, timers, [id]);
      try {
        apply(timer.callback, undefined, timer.args);
      } catch (e) {
        native.fail(formatError(e));
      }
    },
    track(promise, reason, handled) {
      if (handled) apply(mapDelete, unhandled, [promise]);
      else apply(mapSet, unhandled, [promise, reason]);
    },
    firstUnhandled() {
      const iterator = apply(mapEntries, unhandled, []);
      const step = apply(mapIteratorNext, iterator, []);
      return step.done ? null : formatError(step.value[1]);
    },
  });
});
