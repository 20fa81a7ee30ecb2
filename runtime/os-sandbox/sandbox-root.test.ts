import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elfInterpreter, mappedLibraries, parseLdd, sandboxRoot, stagedForNobody } from './sandbox-root.js';

describe('finding what a sandbox process links', () => {
  it('reads the paths of ldd output, loader included, and skips the vDSO and missing libraries', () => {
    const output = [
      '/usr/bin/node:',
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f8e00400000)',
      '\tlibgone.so.1 => not found',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f8e006b0000)',
    ].join('\n');
    expect(parseLdd(output)).toEqual(['/lib/x86_64-linux-gnu/libstdc++.so.6', '/lib64/ld-linux-x86-64.so.2']);
  });

  it('reads shared objects from /proc/<pid>/maps, not the binary, addons or anonymous maps', () => {
    const maps = [
      '5591a000-5591b000 r--p 00000000 fd:01 123 /usr/bin/node',
      '7f00-7f01 r-xp 00000000 fd:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6',
      '7f02-7f03 r-xp 00000000 fd:01 457 /opt/addon/build/thing.node',
      '7f04-7f05 rw-p 00000000 00:00 0 ',
      '7f06-7f07 r-xp 00000000 fd:01 458 /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30',
    ].join('\n');
    expect(mappedLibraries(maps)).toEqual(['/usr/lib/x86_64-linux-gnu/libc.so.6', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30']);
  });

  it('finds the loader the kernel starts Node with (PT_INTERP), which this process has mapped', () => {
    const interpreter = elfInterpreter(process.execPath);
    expect(interpreter).toMatch(/^\/.*ld-.*\.so/);
    expect(elfInterpreter('/proc/self/status')).toBeUndefined();
  });

  it('puts Node, its loader and libc, and isolated-vm in the sandbox root', () => {
    const root = sandboxRoot();
    expect(root.node).toBe(process.execPath);
    expect(root.libraries).toContain(elfInterpreter(process.execPath));
    const mappedLibc = mappedLibraries(readFileSync('/proc/self/maps', 'utf8')).find((p) => /\/libc\.so/.test(p));
    expect(root.libraries.some((l) => l.endsWith('/libc.so.6'))).toBe(mappedLibc !== undefined);
    expect(root.isolatedVm).toMatch(/node_modules\/isolated-vm$/);
  });

  it('stages isolated-vm for nobody once, readable by all and writable by its owner only, and reuses it', () => {
    const root = sandboxRoot();
    const first = stagedForNobody(root);
    expect(first.isolatedVm).not.toBe(root.isolatedVm);
    expect(stagedForNobody(root).isolatedVm).toBe(first.isolatedVm);
    for (const path of [dirname(first.isolatedVm), first.isolatedVm, join(first.isolatedVm, 'package.json'), join(first.isolatedVm, 'out', 'isolated_vm.node')]) {
      const mode = statSync(path).mode & 0o777;
      expect({ path, readable: (mode & 0o004) !== 0, writableByOthers: (mode & 0o022) !== 0 }).toEqual({ path, readable: true, writableByOthers: false });
    }
    expect(statSync(join(first.isolatedVm, 'out', 'isolated_vm.node')).size).toBe(statSync(join(root.isolatedVm, 'out', 'isolated_vm.node')).size);
    expect({ ...first, isolatedVm: root.isolatedVm }).toEqual(root);
  });

  it('never reuses a staged copy someone else could write to: a fresh one is made instead', () => {
    const root = sandboxRoot();
    const shared = dirname(stagedForNobody(root).isolatedVm);
    chmodSync(shared, 0o777); // as if planted, or tampered with
    try {
      const fresh = stagedForNobody(root);
      expect(dirname(fresh.isolatedVm)).not.toBe(shared);
      expect(existsSync(join(fresh.isolatedVm, 'package.json'))).toBe(true);
      rmSync(dirname(fresh.isolatedVm), { recursive: true, force: true });
    } finally {
      chmodSync(shared, 0o755);
    }
  });
});
