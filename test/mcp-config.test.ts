import { describe, expect, it } from 'vitest';
import { checkServerSpecs, McpConfigError, parseMcpCommandLine, parseMcpConfig, splitCommandLine } from '../mcp/index.js';

describe('when parsing --mcp command lines', () => {
  it('splits words with quotes and backslashes like a shell, without expansion', () => {
    expect(splitCommandLine(`npx -y "@scope/server x" 'a b' c\\ d $HOME`)).toEqual(['npx', '-y', '@scope/server x', 'a b', 'c d', '$HOME']);
    expect(() => splitCommandLine('node "unterminated')).toThrow(/unterminated " quote/);
  });

  it('derives the server name from the package or binary', () => {
    expect(parseMcpCommandLine('npx -y @modelcontextprotocol/server-filesystem /tmp')).toEqual({ name: 'filesystem', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] });
    expect(parseMcpCommandLine('node_modules/.bin/mcp-server-everything stdio').name).toBe('everything');
    expect(parseMcpCommandLine('uvx mcp-server-git@1.2 --repo .').name).toBe('git');
    expect(parseMcpCommandLine('node ./servers/weather.mjs').name).toBe('weather');
  });

  it('takes an explicit name=command', () => {
    expect(parseMcpCommandLine('docs=node server.js --port 0')).toEqual({ name: 'docs', command: 'node', args: ['server.js', '--port', '0'] });
  });

  it('refuses a name=command whose name breaks the naming rule, saying the rule', () => {
    expect(() => parseMcpCommandLine('a.b=node server.js')).toThrow(/server name "a\.b" must match \[A-Za-z0-9_-\]\{1,64\}/);
    expect(() => parseMcpCommandLine(`${'x'.repeat(65)}=node server.js`)).toThrow(McpConfigError);
  });

  it('refuses an empty command', () => {
    expect(() => parseMcpCommandLine('   ')).toThrow(McpConfigError);
  });
});

describe('when reading mcp.json', () => {
  it('reads the common format', () => {
    const specs = parseMcpConfig(JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'x'], env: { TOKEN: 't' } }, git: { command: 'uvx' } } }));
    expect(specs).toEqual([
      { name: 'fs', command: 'npx', args: ['-y', 'x'], env: { TOKEN: 't' } },
      { name: 'git', command: 'uvx', args: [] },
    ]);
  });

  it('names the file and the field that is wrong', () => {
    expect(() => parseMcpConfig('{', 'my.json')).toThrow(/^my\.json: is not valid JSON/);
    expect(() => parseMcpConfig('{"servers":{}}', 'my.json')).toThrow(/my\.json: must be an object with "mcpServers"/);
    expect(() => parseMcpConfig('{"mcpServers":{"fs":{"command":"x","args":"-y"}}}', 'my.json')).toThrow(/my\.json: mcpServers\.fs\.args: /);
    expect(() => parseMcpConfig('{"mcpServers":{"remote":{"url":"https://x"}}}', 'my.json')).toThrow(/only stdio servers/);
    expect(() => parseMcpConfig('{"mcpServers":{"a.b":{"command":"x"}}}', 'my.json')).toThrow(/server names must match/);
    expect(() => parseMcpConfig('{"mcpServers":{"__proto__":{"command":"x"}}}', 'my.json')).not.toThrow(TypeError);
  });

  it('refuses two servers with one name', () => {
    expect(() => checkServerSpecs([parseMcpCommandLine('mcp-server-x'), parseMcpCommandLine('npx mcp-server-x')])).toThrow(/two servers have this name/);
  });
});
