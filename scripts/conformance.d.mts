export declare const CONFORMANCE_VERSION: string;
export declare const NODE_PACKAGE: string;
export declare const CONFORMANCE_DIR: string;
export interface ConformanceSuite {
  /** A Node 22 binary; run the CLI as `spawn(nodeBin, [cliPath, ...args])`. */
  nodeBin: string;
  /** The suite's CLI entry (`@modelcontextprotocol/conformance/dist/index.js`). */
  cliPath: string;
  /** The install directory. */
  dir: string;
}
export declare function ensureConformanceSuite(options?: { log?: (line: string) => void }): Promise<ConformanceSuite>;
