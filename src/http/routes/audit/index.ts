import type { App } from '../../../app.ts';
import { installAuditHook } from '../../audit-hook.ts';
import listAudit from './listAudit.ts';

export default function register(app: App) {
  // The hook is app-wide (Fastify applies hooks to routes declared before it too); it lives with the audit area.
  installAuditHook(app, app.ctx);
  listAudit(app);
}
