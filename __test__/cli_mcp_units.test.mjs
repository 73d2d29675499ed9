// The command's small pure modules on their own: argument checks (cli/arguments.mjs),
// error messages (cli/errors.mjs, cli/params.mjs), the modern era's vocabulary
// (cli/era.mjs) and upstream item names (cli/namespace.mjs). Their behaviour through the real command is in
// cli_mcp_inputs.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argumentProblem } from '../cli/arguments.mjs';
import { splitPromptName, tagged, templateMatches } from '../cli/namespace.mjs';
import { bareMessage, onePrefix, protocolError, UnavailableError } from '../cli/errors.mjs';
import { clearerError } from '../cli/params.mjs';
import { isModernRequest, unsupportedVersion, stamp, honoured, forSubscription } from '../cli/era.mjs';

const EXEC = { type: 'object', properties: { code: {}, language: {}, restartSafe: {} }, required: ['code'], additionalProperties: false };

test('argumentProblem accepts exactly the declared keys', () => {
  assert.equal(argumentProblem('exec', { code: 'x', language: 'typescript', restartSafe: true }, EXEC), undefined);
});

test('argumentProblem names every unknown key, each with the key it may stand for', () => {
  assert.equal(argumentProblem('exec', { code: 'x', lang: 'ts', colour: 1 }, EXEC),
    'exec: unknown arguments "lang" (did you mean "language"?), "colour". exec takes "code", "language", "restartSafe".');
});

test('argumentProblem suggests by spelling as well as by alias', () => {
  assert.match(argumentProblem('exec', { cod: 'x' }, EXEC), /unknown argument "cod"; did you mean "code"\?/);
  assert.match(argumentProblem('exec', { script: 'x' }, EXEC), /unknown argument "script"; did you mean "code"\?/);
});

test('argumentProblem names missing required keys once there are no unknown ones', () => {
  assert.equal(argumentProblem('exec', { language: 'javascript' }, EXEC), 'exec: missing required argument "code". exec takes "code", "language", "restartSafe".');
});

test('bareMessage drops every MCP error prefix and onePrefix keeps the first', () => {
  const twice = 'MCP error -32602: MCP error -32602: Tool x not found';
  assert.equal(bareMessage(twice), 'Tool x not found');
  assert.equal(onePrefix(twice), 'MCP error -32602: Tool x not found');
  assert.equal(onePrefix('Tool x not found'), 'Tool x not found');
});

test('protocolError carries its code and an unprefixed message', () => {
  const error = protocolError(-32602, 'Unknown tool "x"', { tool: 'x' });
  assert.deepEqual({ code: error.code, message: error.message, data: error.data }, { code: -32602, message: 'Unknown tool "x"', data: { tool: 'x' } });
});

test('UnavailableError names the server and keeps the reason apart', () => {
  const error = new UnavailableError('fs', 'spawn x ENOENT; it is being restarted');
  assert.equal(error.message, 'MCP server "fs" is unavailable: spawn x ENOENT; it is being restarted');
  assert.equal(error.reason, 'spawn x ENOENT; it is being restarted');
});

test('splitPromptName takes the longest server name that prefixes the prompt', () => {
  assert.deepEqual(splitPromptName('a__b__c', ['a', 'a__b']), { server: 'a__b', prompt: 'c' });
  assert.deepEqual(splitPromptName('a__b__c', ['a']), { server: 'a', prompt: 'b__c' });
  assert.equal(splitPromptName('a__', ['a']), undefined);
  assert.equal(splitPromptName('plain', ['a']), undefined);
});

test('tagged names the server in the description and _meta, keeping the rest', () => {
  assert.deepEqual(tagged('fs', { uri: 'file:///a', name: 'a', _meta: { k: 1 } }), { uri: 'file:///a', name: 'a', description: '[fs]', _meta: { k: 1, 'codemode-native/server': 'fs' } });
});

test('templateMatches matches URIs of a template and refuses others', () => {
  assert.equal(templateMatches('demo://text/{id}', 'demo://text/3'), true);
  assert.equal(templateMatches('demo://text/{id}', 'demo://blob/3'), false);
});

test('clearerError turns a -32603 list of Zod issues into -32602 sentences and leaves other errors alone', () => {
  const issues = [{ code: 'invalid_type', expected: 'string', path: ['params', 'uri'], message: 'x' }, { code: 'custom', path: ['params', 'n'], message: 'too big' }];
  assert.deepEqual(clearerError({ code: -32603, message: JSON.stringify(issues) }, { method: 'resources/read', params: { n: 9 } }),
    { code: -32602, message: 'Invalid params for resources/read: params.uri is required; params.n: too big' });
  const internal = { code: -32603, message: 'boom' };
  assert.equal(clearerError(internal, { method: 'tools/list' }), internal);
  assert.equal(clearerError({ code: -32603, message: JSON.stringify(issues) }, undefined).code, -32603);
});

test('a request is modern by server/discover or by the version in its _meta; later revisions are named as unsupported', () => {
  const meta = (v) => ({ method: 'tools/list', id: 1, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': v } } });
  assert.equal(isModernRequest({ method: 'server/discover', id: 1 }), true);
  assert.equal(isModernRequest(meta('2026-07-28')), true);
  assert.equal(isModernRequest(meta('2025-11-25')), false);
  assert.equal(isModernRequest({ method: 'tools/list', id: 1 }), false);
  assert.equal(unsupportedVersion(meta('2026-07-28')), undefined);
  assert.equal(unsupportedVersion(meta('2027-01-01')), '2027-01-01');
});

test('stamp adds resultType and the server, and cache fields only to cacheable results', () => {
  const listed = stamp('tools/list', { tools: [], _meta: { kept: 1 } });
  assert.equal(listed.resultType, 'complete');
  assert.deepEqual([listed.ttlMs, listed.cacheScope, listed._meta.kept], [0, 'private', 1]);
  assert.equal(listed._meta['io.modelcontextprotocol/serverInfo'].name, 'codemode-native');
  assert.equal('ttlMs' in stamp('tools/call', { content: [] }), false);
});

test('a listen stream gets only the list changes it asked for, tagged with its id', () => {
  const filter = honoured({ toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['x'] });
  assert.deepEqual(filter, { toolsListChanged: true });
  assert.deepEqual(forSubscription({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 7, filter),
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } });
  assert.equal(forSubscription({ method: 'notifications/prompts/list_changed' }, 7, filter), undefined);
  assert.equal(forSubscription({ method: 'notifications/message', params: {} }, 7, filter), undefined);
});

test('a listen stream names resources only of a server that declares subscribe, and gets their updates', () => {
  const notifications = { resourceSubscriptions: ['a://1', 'a://1', 'a://2'] };
  assert.deepEqual(honoured(notifications, { resources: {} }), {});
  const filter = honoured(notifications, { resources: { subscribe: true } });
  assert.deepEqual(filter, { resourceSubscriptions: ['a://1', 'a://2'] });
  const update = (uri) => ({ method: 'notifications/resources/updated', params: { uri } });
  assert.deepEqual(forSubscription(update('a://2'), 3, filter).params, { uri: 'a://2', _meta: { 'io.modelcontextprotocol/subscriptionId': 3 } });
  assert.equal(forSubscription(update('a://3'), 3, filter), undefined);
});
