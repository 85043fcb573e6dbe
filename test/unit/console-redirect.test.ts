import { describe, expect, it } from 'vitest';
import { isConsoleRedirect } from '../../src/http/routes/pairing/flow.ts';

describe('the console as a pairing redirect_to', () => {
  it('is <PUBLIC_URL>/console/ exactly', () => {
    expect(isConsoleRedirect('https://custody.example', 'https://custody.example/console/')).toBe(true);
    expect(isConsoleRedirect('https://custody.example', 'https://custody.example/console')).toBe(false);
    expect(isConsoleRedirect('https://custody.example', 'https://evil.example/console/')).toBe(false);
  });

  it('on a loopback PUBLIC_URL, is the same scheme, port and path under any loopback name', () => {
    const pub = 'http://127.0.0.1:8080';
    expect(isConsoleRedirect(pub, 'http://localhost:8080/console/')).toBe(true);
    expect(isConsoleRedirect(pub, 'http://[::1]:8080/console/')).toBe(true);
    expect(isConsoleRedirect('http://localhost:8080', 'http://127.0.0.1:8080/console/')).toBe(true);
    expect(isConsoleRedirect('http://127.0.0.1:8080/custody', 'http://localhost:8080/custody/console/')).toBe(true);
  });

  it('never another port, scheme, path, host, query or fragment', () => {
    const pub = 'http://127.0.0.1:8080';
    for (const to of [
      'http://localhost:8081/console/',
      'https://localhost:8080/console/',
      'http://localhost:8080/other/',
      'http://localhost:8080/console/?x=1',
      'http://localhost:8080/console/#x',
      'http://user@localhost:8080/console/',
      'http://localhost.evil.example:8080/console/',
      'http://10.0.0.1:8080/console/',
    ])
      expect(isConsoleRedirect(pub, to), to).toBe(false);
    // A public PUBLIC_URL does not open the loopback names.
    expect(isConsoleRedirect('https://custody.example', 'http://localhost/console/')).toBe(false);
  });
});
