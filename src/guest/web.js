// Guest web globals: URL, URLSearchParams (WHATWG, parsed in Rust), TextEncoder and
// TextDecoder (UTF-8). Compiled to bytecode once per process and loaded into a VM only
// when a cell first touches one of them, so cells that never do pay nothing for them.
(function (native) {
  "use strict";
  const O = Object;
  const freeze = O.freeze;
  const defineProperty = O.defineProperty;
  const apply = Reflect.apply;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const arrayPush = Array.prototype.push;
  const arrayMap = Array.prototype.map;
  const weakGet = WeakMap.prototype.get;
  const weakHas = WeakMap.prototype.has;
  const weakSet = WeakMap.prototype.set;

  // ---- URL and URLSearchParams (WHATWG, parsed in Rust) ----
  const urlState = new WeakMap();
  const paramsState = new WeakMap();
  function urlOf(self) {
    const state = apply(weakGet, urlState, [self]);
    if (state === undefined) throw new TypeErrorCtor("Illegal invocation");
    return state;
  }
  function paramsOf(self) {
    const state = apply(weakGet, paramsState, [self]);
    if (state === undefined) throw new TypeErrorCtor("Illegal invocation");
    return state;
  }
  function syncParamsToUrl(state) {
    if (state.url === null) return;
    const query = native.formSerialize(stringify(state.pairs));
    const url = urlOf(state.url);
    url.parts = parse(native.urlSet(url.parts.href, "search", query));
  }
  class URLSearchParams {
    constructor(init) {
      let pairs = [];
      if (init === undefined || init === null) {
        pairs = [];
      } else if (typeof init === "object" && apply(weakHas, paramsState, [init])) {
        pairs = apply(arrayMap, paramsOf(init).pairs, [(p) => [p[0], p[1]]]);
      } else if (typeof init === "object") {
        if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) apply(arrayPush, pairs, [[StringCtor(pair[0]), StringCtor(pair[1])]]);
        } else {
          for (const key of O.keys(init)) apply(arrayPush, pairs, [[key, StringCtor(init[key])]]);
        }
      } else {
        pairs = parse(native.formParse(StringCtor(init)));
      }
      apply(weakSet, paramsState, [this, { pairs, url: null }]);
    }
    append(name, value) {
      const state = paramsOf(this);
      apply(arrayPush, state.pairs, [[StringCtor(name), StringCtor(value)]]);
      syncParamsToUrl(state);
    }
    delete(name) {
      const state = paramsOf(this);
      const key = StringCtor(name);
      state.pairs = state.pairs.filter((p) => p[0] !== key);
      syncParamsToUrl(state);
    }
    get(name) {
      const key = StringCtor(name);
      for (const p of paramsOf(this).pairs) if (p[0] === key) return p[1];
      return null;
    }
    getAll(name) {
      const key = StringCtor(name);
      return apply(arrayMap, paramsOf(this).pairs.filter((p) => p[0] === key), [(p) => p[1]]);
    }
    has(name) {
      const key = StringCtor(name);
      return paramsOf(this).pairs.some((p) => p[0] === key);
    }
    set(name, value) {
      const state = paramsOf(this);
      const key = StringCtor(name);
      const text = StringCtor(value);
      const out = [];
      let placed = false;
      for (const p of state.pairs) {
        if (p[0] !== key) apply(arrayPush, out, [p]);
        else if (!placed) {
          apply(arrayPush, out, [[key, text]]);
          placed = true;
        }
      }
      if (!placed) apply(arrayPush, out, [[key, text]]);
      state.pairs = out;
      syncParamsToUrl(state);
    }
    sort() {
      const state = paramsOf(this);
      state.pairs = state.pairs.slice().sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      syncParamsToUrl(state);
    }
    forEach(callback, thisArg) {
      for (const p of paramsOf(this).pairs.slice()) apply(callback, thisArg, [p[1], p[0], this]);
    }
    keys() {
      return apply(arrayMap, paramsOf(this).pairs, [(p) => p[0]])[Symbol.iterator]();
    }
    values() {
      return apply(arrayMap, paramsOf(this).pairs, [(p) => p[1]])[Symbol.iterator]();
    }
    entries() {
      return apply(arrayMap, paramsOf(this).pairs, [(p) => [p[0], p[1]]])[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    get size() {
      return paramsOf(this).pairs.length;
    }
    toString() {
      return native.formSerialize(stringify(paramsOf(this).pairs));
    }
    toJSON() {
      return this.toString();
    }
  }
  class URL {
    constructor(input, base) {
      const href = StringCtor(input);
      const baseText = base === undefined ? null : StringCtor(base);
      const parts = native.urlParse(href, baseText);
      if (parts === null || parts === undefined) throw new TypeErrorCtor("Invalid URL: " + href);
      const state = { parts: parse(parts), params: null };
      apply(weakSet, urlState, [this, state]);
    }
    static canParse(input, base) {
      // The native answers `undefined` (not null) for input it cannot parse.
      const parts = native.urlParse(StringCtor(input), base === undefined ? null : StringCtor(base));
      return parts !== null && parts !== undefined;
    }
    get searchParams() {
      const state = urlOf(this);
      if (state.params === null) {
        state.params = new URLSearchParams(state.parts.search);
        paramsOf(state.params).url = this;
      }
      return state.params;
    }
    toString() {
      return urlOf(this).parts.href;
    }
    toJSON() {
      return urlOf(this).parts.href;
    }
  }
  for (const component of ["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"]) {
    defineProperty(URL.prototype, component, {
      get() {
        return urlOf(this).parts[component];
      },
      set(value) {
        const state = urlOf(this);
        const next = native.urlSet(state.parts.href, component, StringCtor(value));
        if (next === null || next === undefined) throw new TypeErrorCtor("Invalid URL: " + StringCtor(value));
        state.parts = parse(next);
        if (state.params !== null) paramsOf(state.params).pairs = parse(native.formParse(state.parts.search));
      },
    });
  }
  defineProperty(URL.prototype, "origin", {
    get() {
      return urlOf(this).parts.origin;
    },
  });

  // ---- TextEncoder / TextDecoder (UTF-8 only, as in the WHATWG Encoding spec's TextEncoder) ----
  const Uint8 = Uint8Array;
  const fromCharCode = StringCtor.fromCharCode;
  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(input) {
      const text = input === undefined ? "" : StringCtor(input);
      const bytes = [];
      for (let i = 0; i < text.length; i++) {
        let c = text.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
          const d = text.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
          } else c = 0xfffd;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) bytes.push(c);
        else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return new Uint8(bytes);
    }
  }
  class TextDecoder {
    constructor(label, options) {
      const name = label === undefined ? "utf-8" : StringCtor(label).toLowerCase();
      if (name !== "utf-8" && name !== "utf8") throw new TypeErrorCtor("TextDecoder supports only utf-8");
      this.fatal = !!(options && options.fatal);
    }
    get encoding() {
      return "utf-8";
    }
    decode(input) {
      if (input === undefined) return "";
      const bytes = ArrayBuffer.isView(input)
        ? new Uint8(input.buffer, input.byteOffset, input.byteLength)
        : new Uint8(input);
      let out = "";
      let i = 0;
      const fatal = this.fatal;
      const bad = () => {
        if (fatal) throw new TypeErrorCtor("The encoded data was not valid utf-8");
        return 0xfffd;
      };
      while (i < bytes.length) {
        const b = bytes[i];
        let c;
        let need = 0;
        if (b < 0x80) c = b;
        else if (b >= 0xc2 && b < 0xe0) { c = b & 31; need = 1; }
        else if (b >= 0xe0 && b < 0xf0) { c = b & 15; need = 2; }
        else if (b >= 0xf0 && b < 0xf5) { c = b & 7; need = 3; }
        else { i++; out += fromCharCode(bad()); continue; }
        let j = 1;
        for (; j <= need; j++) {
          const n = bytes[i + j];
          if (n === undefined || (n & 0xc0) !== 0x80) break;
          c = (c << 6) | (n & 63);
        }
        if (j <= need || (need === 2 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (need === 3 && (c < 0x10000 || c > 0x10ffff))) {
          out += fromCharCode(bad());
          i += j > 1 ? j : 1;
          continue;
        }
        i += need + 1;
        if (c >= 0x10000) {
          c -= 0x10000;
          out += fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
        } else out += fromCharCode(c);
      }
      return out;
    }
  }
  return freeze({ URL, URLSearchParams, TextEncoder, TextDecoder });
});
