// glue/mcp_watch.js on its own with real SDK clients: one shared list_changed handler per
// client, chained to the handler it replaced, listeners that can stop, and null for a
// client that cannot tell.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const watchToolList = vm.runInThisContext(readFileSync(new URL("../src/binding/glue/mcp_watch.js", import.meta.url), "utf8"), { filename: "glue/mcp_watch.js" });
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

async function pair() {
  const server = new McpServer({ name: "watched", version: "1" });
  server.registerTool("first", { inputSchema: {} }, async () => ({ content: [] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "glue-test", version: "1" });
  await client.connect(b);
  let n = 0;
  return { client, change: async () => (server.registerTool("t" + n++, { inputSchema: {} }, async () => ({ content: [] })), tick()) };
}

test("clients that cannot tell get null", () => {
  assert.equal(watchToolList(null, () => {}), null);
  assert.equal(watchToolList("client", () => {}), null);
  assert.equal(watchToolList({ listTools() {} }, () => {}), null);
  assert.equal(watchToolList({ setNotificationHandler() { throw new Error("refused"); } }, () => {}), null);
});

test("every listener of a client is called, a throwing one does not stop the others, and unwatch stops one", async () => {
  const { client, change } = await pair();
  const calls = [];
  const a = () => calls.push("a");
  const b = () => {
    calls.push("b");
    throw new Error("listener failed");
  };
  const stopA = watchToolList(client, a);
  const stopB = watchToolList(client, b);
  assert.equal(typeof stopA, "function");
  await change();
  assert.deepEqual(calls.sort(), ["a", "b"]);
  stopA();
  await change();
  assert.deepEqual(calls.sort(), ["a", "b", "b"]);
  stopB();
  await change();
  assert.equal(calls.length, 3);
});

test("the gateway's own handler keeps running, also one it sets after the watch", async () => {
  const { client, change } = await pair();
  const gateway = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => gateway.push("before"));
  const seen = [];
  watchToolList(client, () => seen.push(1));
  await change();
  assert.deepEqual(gateway, ["before"]);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => gateway.push("after"));
  watchToolList(client, () => seen.push(2));
  await change();
  assert.deepEqual(gateway, ["before", "after"]);
  assert.deepEqual(seen.sort(), [1, 1, 2]);
});
