import { describe, expect, it } from 'vitest';
import { userFacingMessage } from '../../../src/sync/providers/user-message.ts';

describe('userFacingMessage', () => {
  it('keeps a message that names a scope or a tenant as it is', () => {
    const text =
      'Zoom refused listing users: it lacks the scope user:read:list_users:admin. Add it to the Zoom app, then pair the collection again.';
    expect(userFacingMessage(text)).toBe(text);
    expect(
      userFacingMessage('tenant 0f6c4c36-8a58-4d1e-9a5e-6c1f1b0d2a11 no longer grants this application access'),
    ).toContain('0f6c4c36-8a58-4d1e-9a5e-6c1f1b0d2a11');
  });

  it('redacts credentials a message still carries', () => {
    const out = userFacingMessage(
      'refused Bearer eyJhbGciOi.abc.def with refresh_token=rt-9f8e7d6c5b4a and "access_token": "at-0123456789abcdef"',
    );
    expect(out).not.toMatch(/eyJhbGciOi|rt-9f8e7d6c5b4a|at-0123456789abcdef/);
    expect(out).toContain('Bearer [redacted]');
    expect(out).toContain('refresh_token=[redacted]');
  });

  it('clips long messages and never answers an empty text', () => {
    expect(userFacingMessage('x'.repeat(5000), 100)).toHaveLength(100);
    expect(userFacingMessage('   ')).toMatch(/person/);
  });
});
