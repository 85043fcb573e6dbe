import type { AppContext } from '../context.ts';

/** What a write service may use: the process's context without the services and the read side built over it. */
export type ServiceDeps = Omit<AppContext, 'reads' | 'services'>;
