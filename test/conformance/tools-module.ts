/**
 * The tools module `ptc mcp serve --http` serves to the conformance suite: one tool per name the
 * suite's server scenarios call, written as a host's author would write them (defineTool, render).
 * Written out as an .mjs file beside the transpiled project, importing its root.
 */
export function conformanceToolsModule(rootIndex: string): string {
  const codegen = rootIndex.replace(/index\.js$/, 'codegen/index.js');
  return `import { defineTool } from ${JSON.stringify(rootIndex)};
import { jsonSchemaParameters } from ${JSON.stringify(codegen)};
// A 1x1 red PNG and a minimal (empty) WAV.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const none = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const tools = [
  defineTool({ name: 'test_simple_text', description: 'Returns simple text.', parameters: none,
    execute: () => 'This is a simple text response for testing.' }),
  defineTool({ name: 'test_image_content', description: 'Returns an image.', parameters: none,
    output: { render: () => [{ type: 'image', data: PNG, mimeType: 'image/png' }] }, execute: () => 'an image' }),
  defineTool({ name: 'test_audio_content', description: 'Returns audio.', parameters: none,
    output: { render: () => [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }, execute: () => 'audio' }),
  defineTool({ name: 'test_embedded_resource', description: 'Returns an embedded resource.', parameters: none,
    output: { render: () => [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] },
    execute: () => 'a resource' }),
  defineTool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource.', parameters: none,
    output: { render: () => [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ] }, execute: () => 'mixed' }),
  defineTool({ name: 'test_error_handling', description: 'Always fails.', parameters: none,
    execute: () => { throw new Error('This tool intentionally returns an error for testing'); } }),
  defineTool({ name: 'test_tool_with_progress', description: 'Reports progress.', parameters: none,
    execute: async (_args, exec) => {
      for (const progress of [0, 50, 100]) {
        exec.progress?.({ progress, total: 100, message: 'step ' + progress });
        await sleep(60);
      }
      return 'done';
    } }),
  // SEP-1613: a tool defined with a JSON Schema 2020-12 schema is listed with it as given.
  defineTool({ name: 'json_schema_2020_12_tool', description: 'Tool with JSON Schema 2020-12 features',
    parameters: jsonSchemaParameters({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    }),
    execute: (args) => 'Hello ' + (args.name ?? 'nobody') }),
  defineTool({ name: 'test_tool_with_logging', description: 'Logs as it runs.', parameters: none,
    execute: async (_args, exec) => {
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        exec.log?.({ level: 'info', message });
        await sleep(60);
      }
      return 'logged';
    } }),
];
`;
}
