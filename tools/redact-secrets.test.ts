import { describe, expect, it } from 'vitest';
import { redactSecrets, secretEnvValues } from './redact-secrets.js';

describe('when secret values are known', () => {
  it('hides each wherever it occurs, whatever it looks like, the longest first', () => {
    expect(redactSecrets('login refused for hunter2hunter2 (hunter2hunter2x)', { values: ['hunter2hunter2', 'hunter2hunter2x'] })).toBe('login refused for … (…)');
  });

  it('leaves values too short to hide by value to the patterns', () => {
    expect(redactSecrets('retry 1 of 3', { values: ['1', 'abc'] })).toBe('retry 1 of 3');
  });
});

describe('which environment variables are secret', () => {
  it('takes the values of names with a secret part, not the shell and desktop variables that only look like one', () => {
    const env = {
      GITHUB_TOKEN: 'ghp_x_value', OPENAI_API_KEY: 'key-value-1', AWS_SECRET_ACCESS_KEY: 'aws-value-1', DB_PWD: 'db-value-1', NPM_AUTH: 'npm-value-1',
      PWD: '/work/project', OLDPWD: '/work', XAUTHORITY: '/run/user/1000/Xauthority', XDG_SESSION_TYPE: 'wayland', PASSENGER_ROOT: '/opt/passenger', HOME: '/root',
      SHORT_TOKEN: 'abc', UNSET_TOKEN: undefined,
    };
    expect(secretEnvValues(env)).toEqual(['ghp_x_value', 'key-value-1', 'aws-value-1', 'db-value-1', 'npm-value-1']);
  });
});
