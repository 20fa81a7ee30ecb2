import { describe, expect, it } from 'vitest';
import { callableNameOf, mapCallableNames } from './callable-name.js';
import { CallableNameCollisionError } from './errors.js';

describe('when a tool name is already an identifier', () => {
  it('is used as is', () => {
    expect(callableNameOf('read_file')).toBe('read_file');
    expect(callableNameOf('getWeather2')).toBe('getWeather2');
    expect(callableNameOf('_private')).toBe('_private');
  });
});

describe('when a tool name is not an identifier', () => {
  it('turns every run of other characters into one underscore', () => {
    expect(callableNameOf('github.search-issues')).toBe('github_search_issues');
    expect(callableNameOf('fs/read:file')).toBe('fs_read_file');
    expect(callableNameOf('a..b--c')).toBe('a_b_c');
    expect(callableNameOf('trailing.')).toBe('trailing_');
  });

  it('prefixes a leading digit', () => {
    expect(callableNameOf('1password.get')).toBe('_1password_get');
  });

  it('never yields an Object.prototype hazard', () => {
    expect(callableNameOf('__proto_-')).toBe('__proto___');
    expect(callableNameOf('constructor')).toBe('constructor_');
    expect(callableNameOf('prototype')).toBe('prototype_');
  });
});

describe('when mapping a tool set', () => {
  it('returns both directions', () => {
    const maps = mapCallableNames(['a.b', 'c']);
    expect([...maps.callableNames]).toEqual([['a.b', 'a_b'], ['c', 'c']]);
    expect([...maps.toolNames]).toEqual([['a_b', 'a.b'], ['c', 'c']]);
  });

  it('refuses a collision with an error naming both tools and the callable name', () => {
    expect(() => mapCallableNames(['a_b', 'a.b'])).toThrow(CallableNameCollisionError);
    let err: unknown;
    try {
      mapCallableNames(['x', 'a_b', 'a.b']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CallableNameCollisionError);
    expect((err as CallableNameCollisionError).toolNames).toEqual(['a_b', 'a.b']);
    expect((err as CallableNameCollisionError).callableName).toBe('a_b');
  });
});
