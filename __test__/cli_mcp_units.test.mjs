// The command's small pure modules on their own: argument checks (cli/arguments.mjs),
// error messages (cli/errors.mjs) and upstream item names (cli/namespace.mjs). Their behaviour through the real command is in
// cli_mcp_inputs.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argumentProblem } from '../cli/arguments.mjs';
import { splitPromptName, tagged, templateMatches } from '../cli/namespace.mjs';
import { bareMessage, onePrefix, protocolError, UnavailableError } from '../cli/errors.mjs';

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
