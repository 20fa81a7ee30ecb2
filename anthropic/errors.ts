import { PtcError } from '../tools/index.js';

/**
 * A host tool cannot be offered to the Messages API as it is: its name is outside what the API
 * accepts for a tool (letters, digits, `_` and `-`), or its parameters are not an object schema.
 * Thrown by `toAnthropicTools` and `toAnthropicRunnableTools`, before any request: the API would
 * refuse the whole request, and renaming the tool silently would make the trace and the model
 * talk about different names.
 */
export class AnthropicToolDefinitionError extends PtcError {
  override readonly name = 'AnthropicToolDefinitionError';
  constructor(
    readonly toolName: string,
    readonly problem: string,
  ) {
    super(`Tool "${toolName}" cannot be sent to the Anthropic Messages API: ${problem}. Leave it out with { exclude: [${JSON.stringify(toolName)}] }, or register it under another name.`);
  }
}
