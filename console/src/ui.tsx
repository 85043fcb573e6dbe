import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api.ts';

/** An API failure, shown with its `detail` (never swallowed). */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const { detail, meta } = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>Error:</strong> {detail}
      {meta && <div class="meta">{meta}</div>}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice" role="status">
      {children}
    </div>
  );
}

/** Loads data for a screen; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: unknown) => mine === seq.current && setState({ error, loading: false }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** Runs an action from a button or form, keeping its error and busy state. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

/** A cursor-paged list: rows so far, `more()` to fetch the next page. */
export function usePaged<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null | undefined }>,
  deps: unknown[],
) {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const gen = useRef(0);
  const load = async (cursor: string | undefined, reset: boolean) => {
    const mine = reset ? ++gen.current : gen.current;
    setLoading(true);
    setError(undefined);
    try {
      const page = await fetchPage(cursor);
      if (mine !== gen.current) return;
      setRows((r) => (reset ? page.items : [...r, ...page.items]));
      setNext(page.next);
      setDone(!page.next);
    } catch (err) {
      if (mine === gen.current) setError(err);
    } finally {
      if (mine === gen.current) setLoading(false);
    }
  };
  useEffect(() => {
    setRows([]);
    setDone(false);
    void load(undefined, true);
  }, deps);
  return {
    rows,
    loading,
    error,
    done,
    more: () => load(next ?? undefined, false),
    reload: () => load(undefined, true),
  };
}

export function LoadMore({
  paged,
  label = 'Load more',
}: {
  paged: { loading: boolean; done: boolean; more(): void };
  label?: string;
}) {
  if (paged.done) return null;
  return (
    <button type="button" class="secondary" onClick={() => paged.more()} disabled={paged.loading}>
      {paged.loading ? 'Loading…' : label}
    </button>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/**
 * A progress bar with its `done/total` text. `tone` colours it: a failed run's bar is red and says so, never a
 * quiet full "Done".
 */
export function ProgressBar({
  done,
  total,
  label,
  tone = 'ok',
}: {
  done: number;
  total: number;
  label: string;
  tone?: 'ok' | 'failed' | 'partial';
}) {
  return (
    <>
      <progress class={`bar bar-${tone}`} max={Math.max(total, 1)} value={done} aria-label={label} />{' '}
      <span class="progress-text">
        {done}/{total}
      </span>
    </>
  );
}

/** A modal dialog that opens over the page where the user is; Escape or "Close" closes it. */
export function Dialog({ title, onClose, children }: { title: string; onClose(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-h" onClose={onClose}>
      <div class="dialog-head">
        <h3 id="dialog-h">{title}</h3>
        <button type="button" class="secondary" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** A failure the user must notice: red, announced, with what to do next when known. */
export function FailureBox({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="error failure" role="alert">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}
