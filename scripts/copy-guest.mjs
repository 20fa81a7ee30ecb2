// The guest's JavaScript (runtime/isolate/guest/*.js) is loaded as it is, not compiled by tsc:
// `npm run build` copies it beside the built loader (dist/runtime/isolate/guest/).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';

const from = new URL('../runtime/isolate/guest/', import.meta.url);
const to = new URL('../dist/runtime/isolate/guest/', import.meta.url);
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) if (name.endsWith('.js')) copyFileSync(new URL(name, from), new URL(name, to));
