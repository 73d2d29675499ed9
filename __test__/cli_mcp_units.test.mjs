// The command's small pure modules on their own: argument checks (cli/arguments.mjs) and
// error messages (cli/errors.mjs). Their behaviour through the real command is in
// cli_mcp_inputs.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argumentProblem } from '../cli/arguments.mjs';
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
