// Guest host surfaces (namespaces, MCP, nodes, skills, Swarm), loaded from bytecode only
// into cells whose session has one. It reads only the prelude's captured built-ins (`kit`)
// and freezes every object with a null prototype, so guest pollution cannot redirect it.
(function (kit) {
  "use strict";
  const { O, freeze, defineProperty, apply, parse, StringCtor, TypeErrorCtor, ErrorCtor, ArrayIsArray, arrayJoin, arrayMap, bridge, define, formatValue, native, PromiseCtor, promiseReject, ProxyCtor } = kit;
  const create = O.create;
  const arrayIncludes = Array.prototype.includes;
  const stringTrim = String.prototype.trim;
  const hasOwn = O.prototype.hasOwnProperty;

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

  // The required arguments (without a default) that `input` lacks, ", "-joined: the call
  // is refused here, so its error names the caller's line in both isolation modes. Values
  // are read as JSON.stringify reads them; an input with toJSON is left to the host, which
  // checks every call again.
  function missingArguments(input, required) {
    if (input !== undefined && typeof input.toJSON === "function") return "";
    let missing = "";
    for (let i = 0; i < required.length; i++) {
      if (input === undefined || input[required[i]] === undefined) {
        missing += (missing === "" ? "" : ", ") + required[i];
      }
    }
    return missing;
  }

  // A plain function returning the bridge promise, like catalog handles: an async wrapper
  // would add a promise and two job turns to every call. Failures still reject.
  function mcpTool(key, required) {
    return function (input) {
      try {
        if (arguments.length > 1 || (input !== undefined && (input === null || typeof input !== "object" || ArrayIsArray(input)))) {
          throw new TypeErrorCtor("MCP namespace tools accept one object argument.");
        }
        const missing = required === undefined ? "" : missingArguments(input, required);
        if (missing !== "") throw new ErrorCtor("Missing required MCP namespace argument(s): " + missing);
        return bridge("surface", key, input === undefined ? {} : input);
      } catch (e) {
        return apply(promiseReject, PromiseCtor, [e]);
      }
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
    const required = server.required;
    for (const tool of server.tools) node[tool] = mcpTool(prefix + tool, apply(hasOwn, required, [tool]) ? required[tool] : undefined);
    // The server's own tool names answer too (a model often writes what the server calls
    // a tool), as non-enumerable properties so listings show each tool once.
    const toolAliases = server.toolAliases;
    for (const alias of O.keys(toolAliases)) {
      defineProperty(node, alias, { value: node[toolAliases[alias]], enumerable: false });
    }
    if (has("resources.list") || has("resources.read") || has("resources.templates")) {
      const resources = tree();
      if (has("resources.list")) resources.list = async function list() {
        return bridge("surface", prefix + "resources.list", {});
      };
      if (has("resources.templates")) resources.templates = async function templates() {
        return bridge("surface", prefix + "resources.templates", {});
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

  // A server that could not be listed: any tool a guest names on it is a function whose
  // promise rejects naming the server, so the failure is catchable where the call is.
  // `then` and symbols stay undefined so awaiting or printing the object does no harm.
  function downServer(server) {
    const message = 'MCP server "' + server.name + '" is unavailable: ' + server.down;
    const fail = function () {
      return apply(promiseReject, PromiseCtor, [new ErrorCtor(message)]);
    };
    return new ProxyCtor(freeze(tree()), {
      get(target, key) {
        return typeof key === "string" && key !== "then" ? fail : undefined;
      },
    });
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
      const down = typeof server.down === "string";
      const get = function () {
        if (built === null) built = down ? downServer(server) : mcpServer(server);
        return built;
      };
      defineProperty(root, server.id, { get, enumerable: !down });
      for (const alias of server.aliases) defineProperty(root, alias, { get, enumerable: false });
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

  return installSurfaces;
});
