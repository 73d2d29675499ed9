// Redaction options as Rust reads them (a session's `redaction`, `redactSource`'s options):
// RegExp patterns become their source with the flags Rust's regex syntax shares (i, m, s)
// written inline; everything else passes unchanged, to be checked in Rust.
(function redactionAsText(redaction) {
  "use strict";
  if (redaction === null || typeof redaction !== "object" || !Array.isArray(redaction.patterns)) return redaction === null ? undefined : redaction;
  const patterns = redaction.patterns.map((p) => {
    if (!(p instanceof RegExp)) return p;
    const flags = ["i", "m", "s"].filter((f) => p.flags.includes(f)).join("");
    return (flags ? "(?" + flags + ")" : "") + p.source;
  });
  return { secrets: redaction.secrets, patterns };
})
