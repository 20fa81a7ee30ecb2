/**
 * ptc-runtime: programmatic tool calling. The package root is the tool model (it never loads
 * isolated-vm or child processes); run_code lives in `ptc-runtime/runtime`, codegen in
 * `ptc-runtime/codegen`.
 */
export * from './tools/index.js';
