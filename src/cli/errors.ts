/**
 * Exit codes of `custody` (documented in docs/cli.md):
 * 0 done (for `collections start --watch`: the run succeeded), 1 an error (the API refused, the server is
 * unreachable, a port is taken), 2 bad usage or configuration, 3 the watched run completed with errors,
 * 4 the watched run failed, errored or was cancelled.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, runCompletedWithErrors: 3, runFailed: 4 } as const;

/** An error the CLI reports as one line on stderr (no stack unless --debug), exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
