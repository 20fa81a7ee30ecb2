/** Host-side errors raised by codegen, each naming what was wrong. */
import { PtcError } from '../tools/index.js';

/** Two tools map to the same callable name in programs (`tools.<callable>`). */
export class CallableNameCollisionError extends PtcError {
  override readonly name = 'CallableNameCollisionError';
  constructor(
    /** The shared callable name. */
    readonly callableName: string,
    /** The two tool names, in the order they were seen. */
    readonly toolNames: readonly [string, string],
  ) {
    super(
      `Tools "${toolNames[0]}" and "${toolNames[1]}" both map to the callable name tools.${callableName} in programs; rename one of them (or exclude it)`,
    );
  }
}

/** The argument given to a codegen function is not what it accepts. */
export class CodegenInputError extends PtcError {
  override readonly name = 'CodegenInputError';
  constructor(
    /** The function and argument, e.g. `generateToolTypes(toolsOrHost)`. */
    readonly argument: string,
    readonly problem: string,
  ) {
    super(`${argument} ${problem}`);
  }
}
