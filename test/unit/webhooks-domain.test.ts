import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DELIVERY_BACKOFF,
  isPrivateAddress,
  nextAttemptDelay,
  signatureHeader,
} from '../../src/domain/webhooks.ts';

describe('webhook rules', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 under the UTF-8 secret, hex', () => {
    // oracle computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'clé'
    const expected = 'c901fb939a9d50beb48db11096a63e3e86d0b2ccf17df8f0f808e96bf1ad89e5';
    expect(signatureHeader('clé', 1700000000, '{"a":1}')).toBe(`t=1700000000,v1=${expected}`);
    expect(signatureHeader('clé', 1700000001, '{"a":1}')).not.toBe(`t=1700000000,v1=${expected}`);
  });

  it('refuses loopback, private, link-local, mapped and reserved addresses; allows public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it('backs off along the schedule and gives up once the next attempt would start after the bound', () => {
    const policy = { delaysMs: [1_000, 5_000], giveUpAfterMs: 12_000 };
    expect(nextAttemptDelay(policy, 1, 0)).toBe(1_000);
    expect(nextAttemptDelay(policy, 2, 1_000)).toBe(5_000);
    expect(nextAttemptDelay(policy, 3, 6_000)).toBe(5_000);
    expect(nextAttemptDelay(policy, 4, 11_000)).toBeNull();
    expect(nextAttemptDelay(DEFAULT_DELIVERY_BACKOFF, 1, 0)).toBe(10_000);
  });
});
