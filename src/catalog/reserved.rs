//! Identifiers a tool may never take as its guest global: JS reserved words, the code-mode
//! runtime's own globals, and the ECMAScript standard built-in globals.

/// Reserved words in any mode, strict-mode future reserved words, and contextual keywords
/// whose use as a plain binding is forbidden or confusing in some context (`await` in
/// async bodies, `yield` in generators, `let`/`static` in strict code, `arguments`/`eval`
/// as strict-mode binding targets, `async`/`using` which start declarations).
pub(super) const KEYWORDS: &str = "\
    arguments async await break case catch class const continue debugger default \
    delete do else enum eval export extends false finally for function if \
    implements import in instanceof interface let new null package private \
    protected public return static super switch this throw true try typeof using \
    var void while with yield";

/// Globals the code-mode runtime installs (docs/contract.md, Guest runtime). `require` is
/// here because the source front-end rejects every call of that identifier, so a global so
/// named could never be called; `performance` backs `performance.now()`.
pub(super) const RUNTIME_GLOBALS: &str = "\
    catalog MCP API namespaces nodes skills agents phase log text json \
    yield_control setTimeout clearTimeout console globalThis URL URLSearchParams \
    TextEncoder TextDecoder performance queueMicrotask require";

/// ECMAScript standard built-in globals (value properties, function properties,
/// constructors and namespace objects, including Annex B and recent additions), plus the
/// members every global object inherits from `Object.prototype`, which a tool global
/// must not shadow (`__proto__` would even replace the global's prototype).
pub(super) const BUILTINS: &str = "\
    AggregateError Array ArrayBuffer AsyncDisposableStack Atomics BigInt \
    BigInt64Array BigUint64Array Boolean DataView Date DisposableStack Error \
    EvalError FinalizationRegistry Float16Array Float32Array Float64Array Function \
    Infinity Int16Array Int32Array Int8Array Intl Iterator JSON Map Math NaN Number \
    Object Promise Proxy RangeError ReferenceError Reflect RegExp Set \
    SharedArrayBuffer String SuppressedError Symbol SyntaxError TypeError URIError \
    Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet \
    decodeURI decodeURIComponent encodeURI encodeURIComponent escape isFinite isNaN \
    parseFloat parseInt undefined unescape __defineGetter__ __defineSetter__ \
    __lookupGetter__ __lookupSetter__ __proto__ constructor hasOwnProperty \
    isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf";
