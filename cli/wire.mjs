// What passes between a connection's transport and its SDK 1.x Server, adjusted in one
// place: error messages leave bare (errors.mjs) and schema failures as -32602 (params.mjs),
// and the modern era's requests (era.mjs) are answered or stamped here, since the 1.x
// Server knows nothing of them.
import { bareMessage } from "./errors.mjs";
import { clearerError } from "./params.mjs";
import {
  isModernRequest,
  unsupportedVersion,
  unsupportedVersionError,
  discoverResult,
  stamp,
  honoured,
  acknowledgement,
  forSubscription,
} from "./era.mjs";

const isRequest = (m) => typeof m?.method === "string" && m.id !== undefined;
const isResponse = (m) => m?.method === undefined && m?.id !== undefined && (m.result !== undefined || m.error !== undefined);

/**
 * Wraps `transport` for a server with `capabilities`, once a Server has connected to it
 * (its `onmessage` set; some transports forward it to an inner one, so it is read, not
 * redefined). `hooks.hello()` settles the capabilities before initialize or server/discover
 * is answered; `hooks.listen(uris)` subscribes a listen stream's URIs, resolving with those
 * it could.
 */
export function wire(transport, capabilities, hooks = {}) {
  const hello = hooks.hello ?? (async () => {});
  const listenTo = hooks.listen ?? (async () => []);
  const requests = new Map(); // id -> { method, params, modern } until answered
  const listens = new Map(); // listen request id -> the filter it was granted
  let modern = false; // the client spoke the modern era
  const inner = transport.onmessage;
  const send = transport.send.bind(transport);

  const reply = (id, body) => send({ jsonrpc: "2.0", id, ...body });

  function receive(message, extra) {
    if (isRequest(message)) {
      const isModern = isModernRequest(message);
      requests.set(message.id, { method: message.method, params: message.params, modern: isModern });
      // A client that probed with server/discover may still settle on the 2025 era.
      if (message.method === "initialize") {
        modern = false;
        return hello().then(() => inner(message, extra));
      }
      if (isModern) {
        modern = true;
        const version = unsupportedVersion(message);
        if (version !== undefined) return answer(message.id, { error: unsupportedVersionError(version) });
        if (message.method === "server/discover") return hello().then(() => answer(message.id, { result: discoverResult(capabilities) }));
        if (message.method === "subscriptions/listen") return listen(message);
      }
    }
    // A cancelled request gets no response: forget it here.
    if (message?.method === "notifications/cancelled") requests.delete(message.params?.requestId);
    return inner(message, extra);
  }

  // Open until the connection ends: the command never ends a subscription itself. Its URIs
  // are subscribed before the acknowledgement, so every update after it is delivered.
  async function listen(message) {
    await hello();
    const filter = honoured(message.params?.notifications, capabilities);
    if (filter.resourceSubscriptions !== undefined) {
      const uris = await listenTo(filter.resourceSubscriptions);
      if (uris.length > 0) filter.resourceSubscriptions = uris;
      else delete filter.resourceSubscriptions;
    }
    listens.set(message.id, filter);
    return send(acknowledgement(message.id, filter)).catch(() => {});
  }

  function answer(id, body) {
    requests.delete(id);
    return reply(id, body.result !== undefined ? { result: body.result } : { error: body.error }).catch(() => {});
  }

  transport.onmessage = receive;

  transport.send = (message, options) => {
    if (isResponse(message)) {
      const request = requests.get(message.id);
      requests.delete(message.id);
      if (message.error !== undefined) {
        const error = clearerError(message.error, request);
        message = { ...message, error: { ...error, message: bareMessage(error.message) } };
      } else if (request?.modern) {
        message = { ...message, result: stamp(request.method, message.result) };
      }
      return send(message, options);
    }
    // A modern client gets notifications outside a request only on a listen stream that
    // asked for them (and none of the logging the era removed).
    if (modern && message?.method !== undefined && message.id === undefined && options?.relatedRequestId === undefined) {
      const sends = [...listens].map(([id, filter]) => forSubscription(message, id, filter)).filter(Boolean);
      return Promise.all(sends.map((m) => send(m, options))).then(() => {});
    }
    return send(message, options);
  };
}
