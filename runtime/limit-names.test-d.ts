import { expectTypeOf, test } from 'vitest';
import type { LimitName } from '../bridge/index.js';
import type { RunLimits } from './program-runner.js';

test('every run limit has a message, and every limit with a message is a run limit', () => {
  expectTypeOf<keyof RunLimits>().toEqualTypeOf<LimitName>();
});
