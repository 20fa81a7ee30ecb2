import { describe, expect, it } from 'vitest';
import { checkServerSpecs, describeServer, McpConfigError, parseMcpCommandLine, parseMcpConfig, redactSecrets, splitCommandLine } from '../mcp/index.js';

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
    expect(() => parseMcpConfig('{"mcpServers":{"remote":{"url":"ftp://x"}}}', 'my.json')).toThrow(/my\.json: mcpServers\.remote\.url: url must start with http:\/\/ or https:\/\//);
    expect(() => parseMcpConfig('{"mcpServers":{"a.b":{"command":"x"}}}', 'my.json')).toThrow(/server names must match/);
    expect(() => parseMcpConfig('{"mcpServers":{"__proto__":{"command":"x"}}}', 'my.json')).not.toThrow(TypeError);
  });

  it('refuses two servers with one name', () => {
    expect(() => checkServerSpecs([parseMcpCommandLine('mcp-server-x'), parseMcpCommandLine('npx mcp-server-x')])).toThrow(/two servers have this name/);
  });
});

describe('when a --mcp line or mcp.json carries secrets', () => {
  const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

  it('refuses GITHUB_TOKEN=… cmd (an environment assignment) without running or printing the token', () => {
    const err = (() => {
      try {
        parseMcpCommandLine(`GITHUB_TOKEN=${token} github-mcp-server stdio`);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(McpConfigError.isInstance(err)).toBe(true);
    expect(err!.message).toMatch(/^--mcp "GITHUB_TOKEN=…": GITHUB_TOKEN=… looks like an environment variable assignment/);
    expect(err!.message).not.toContain(token);
    expect(err!.message).not.toContain('ghp_');
  });

  it('never echoes a secret in other --mcp errors either', () => {
    for (const line of [`srv=github-mcp --token "${token}`, `a.b=github-mcp ${token}`, `https://x.example/mcp --bogus ${token}`]) {
      const message = (() => {
        try {
          parseMcpCommandLine(line);
          return 'no error';
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(message).not.toBe('no error');
      expect(message).not.toContain(token);
    }
  });

  it('redacts tokens, auth headers, secret assignments, url credentials and query values', () => {
    expect(redactSecrets(`run --token ${token} --key sk-ant-api03-abcdefghijklmnop`)).toBe('run --token … --key …');
    expect(redactSecrets('Authorization: Bearer abc.def.ghi')).toBe('Authorization: …');
    expect(redactSecrets('API_KEY=hunter2 DEBUG=1 password: x1')).toBe('API_KEY=… DEBUG=1 password: …');
    expect(redactSecrets('https://me:pw@h.example/mcp?api_key=123&x=2')).toBe('https://…@h.example/mcp?api_key=…&x=…');
    expect(describeServer({ name: 'gh', url: 'https://me:pw@h.example/mcp?key=abc', headers: { Authorization: `Bearer ${token}` } })).toBe('https://…@h.example/mcp?key=…');
    expect(describeServer({ name: 'gh', command: 'github-mcp', args: ['--token', token], env: { GITHUB_TOKEN: token } })).toBe('github-mcp --token …');
  });
});

describe('when a server is remote (Streamable HTTP)', () => {
  it('takes a url on --mcp, naming the server from its host unless named', () => {
    expect(parseMcpCommandLine('https://mcp.linear.app/mcp')).toEqual({ name: 'linear', url: 'https://mcp.linear.app/mcp' });
    expect(parseMcpCommandLine('gh=https://api.githubcopilot.com/mcp/')).toEqual({ name: 'gh', url: 'https://api.githubcopilot.com/mcp/' });
    expect(parseMcpCommandLine('http://127.0.0.1:3001/mcp').name).toBe('mcp');
  });

  it('reads --header values with ${VAR} from the environment, so the token is not on the command line', () => {
    process.env.PTC_TEST_MCP_TOKEN = 'secret-value';
    try {
      expect(parseMcpCommandLine('gh=https://h.example/mcp --header "Authorization: Bearer ${PTC_TEST_MCP_TOKEN}"')).toEqual({ name: 'gh', url: 'https://h.example/mcp', headers: { Authorization: 'Bearer secret-value' } });
    } finally {
      delete process.env.PTC_TEST_MCP_TOKEN;
    }
    expect(() => parseMcpCommandLine('gh=https://h.example/mcp -H "X-Key: ${PTC_TEST_UNSET_VAR}"')).toThrow(/environment variable PTC_TEST_UNSET_VAR is not set/);
  });

  it('reads url entries as Claude Code and Cursor write them, with headers and ${VAR}', () => {
    const config = {
      mcpServers: {
        linear: { type: 'http', url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer ${PTC_TEST_MCP_TOKEN}' } },
        cursorStyle: { url: 'https://h.example/mcp' },
        old: { type: 'sse', url: 'https://h.example/sse' },
        local: { command: '${PTC_TEST_MCP_BIN:-node}', args: ['server.js'], env: { TOKEN: '${PTC_TEST_MCP_TOKEN}' } },
      },
    };
    process.env.PTC_TEST_MCP_TOKEN = 't0k';
    try {
      expect(parseMcpConfig(JSON.stringify(config))).toEqual([
        { name: 'linear', url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer t0k' } },
        { name: 'cursorStyle', url: 'https://h.example/mcp' },
        { name: 'old', url: 'https://h.example/sse', transport: 'sse' },
        { name: 'local', command: 'node', args: ['server.js'], env: { TOKEN: 't0k' } },
      ]);
    } finally {
      delete process.env.PTC_TEST_MCP_TOKEN;
    }
    expect(() => parseMcpConfig(JSON.stringify(config), 'x.json')).toThrow(/^x\.json: mcpServers\.linear\.headers\.Authorization: environment variable PTC_TEST_MCP_TOKEN is not set/);
  });
});
