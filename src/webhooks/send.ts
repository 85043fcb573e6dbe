import dns from 'node:dns';
import net from 'node:net';
import { Agent, request } from 'undici';
import { isPrivateAddress } from '../domain/webhooks.ts';

export class UnsafeTargetError extends Error {}

export interface WebhookSender {
  /** One POST; resolves with the status, rejects on a network error, a timeout or a refused address. */
  post(url: string, headers: Record<string, string>, body: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Refuses URLs that are not http(s), carry credentials, or whose host is (or resolves to, any of its addresses)
 * loopback, private or link-local, unless private targets are allowed.
 */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL.';
  if (url.username || url.password) return 'must not carry a user name or password.';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = net.isIP(host)
      ? [host]
      : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `host ${host} does not resolve.`;
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress))
    return `host ${host} is a loopback, private or link-local address; webhooks go to public addresses only.`;
  return null;
}

/**
 * The delivery transport. The address check runs again at connect time inside the DNS lookup the connection
 * really uses, so a name that resolved to a public address at registration cannot be re-pointed inward later.
 */
export function createSender(opts: { allowPrivate: boolean; timeoutMs: number }): WebhookSender {
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      if (!opts.allowPrivate && (list.length === 0 || list.some((a) => isPrivateAddress(a.address)))) {
        return callback(
          new UnsafeTargetError(`${hostname} resolves to a loopback, private or link-local address`),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
  const agent = new Agent({
    connect: { lookup, timeout: opts.timeoutMs },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  return {
    async post(url, headers, body) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      // an IP literal never goes through the lookup above
      if (!opts.allowPrivate && net.isIP(host) && isPrivateAddress(host))
        throw new UnsafeTargetError(`${host} is a loopback, private or link-local address`);
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      await res.body.dump();
      return res.statusCode;
    },
    close: () => agent.close(),
  };
}
