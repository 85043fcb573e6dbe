import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import { driveUrl, isGraphLink, type DriveItem, type GraphPage } from './graph.ts';

/** Graph's default and recommended page size for children (reference §2.5). */
export const CHILDREN_PAGE_SIZE = 200;

export function childrenUrl(graphUrl: string, userId: string, parentId: string | undefined, select: string): string {
  const where = parentId === undefined ? '/root' : `/items/${encodeURIComponent(parentId)}`;
  return driveUrl(graphUrl, userId, `${where}/children?$select=${select}&$top=${CHILDREN_PAGE_SIZE}`);
}

/** One page of a children listing; listing children costs 2 SharePoint resource units per page. */
export async function childrenPage(
  http: ProviderHttp,
  graphUrl: string,
  link: string,
): Promise<{ items: DriveItem[]; next: string | null }> {
  const page = await http.json<GraphPage<DriveItem>>(link, { cost: 2 });
  const next = page?.['@odata.nextLink'];
  if (next !== undefined && !isGraphLink(graphUrl, next)) {
    throw new ProviderError('Graph answered a nextLink outside the configured Graph endpoint', {
      code: 'invalid_response',
      retryable: false,
    });
  }
  return { items: (page?.value ?? []).filter((i) => typeof i?.id === 'string'), next: next ?? null };
}

/** Results in input order, at most `limit` calls in flight. */
export async function mapLimit<T, R>(inputs: T[], limit: number, fn: (input: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(inputs.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < inputs.length && !failed) {
      const i = next++;
      try {
        out[i] = await fn(inputs[i]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return out;
}
