import { PtcError } from '../tools/index.js';

/** A bad `--mcp` command line or `mcp.json`: names the file or flag and what was wrong. */
export class McpConfigError extends PtcError {
  override readonly name = 'McpConfigError';
  constructor(
    readonly source: string,
    readonly problem: string,
  ) {
    super(`${source}: ${problem}`);
  }
}

/** An MCP server could not be started or initialized; `stderrTail` is the end of what it printed. */
export class McpServerStartError extends PtcError {
  override readonly name = 'McpServerStartError';
  constructor(
    readonly server: string,
    readonly command: string,
    readonly problem: string,
    readonly stderrTail: string,
  ) {
    super(`MCP server "${server}" (${command}) failed to start: ${problem}${stderrTail ? `\n--- its stderr (last lines) ---\n${stderrTail}` : ''}`);
  }
}

/** The MCP client sent a message larger than the stdio transport reads; the connection was closed. */
export class McpMessageTooLargeError extends PtcError {
  override readonly name = 'McpMessageTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the MCP client sent a message larger than ${maxBytes} bytes, the most one stdio message may be; the connection was closed`);
  }
}

/**
 * OAuth with an imported MCP server failed or needs a person (a login). Names the server and what
 * to do; never carries a token, a code or a client secret.
 */
export class McpAuthError extends PtcError {
  override readonly name = 'McpAuthError';
  constructor(
    readonly server: string,
    readonly problem: string,
  ) {
    super(`MCP server "${server}": ${problem}`);
  }
}
