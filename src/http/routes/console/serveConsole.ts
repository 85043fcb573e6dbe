import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { AppError } from '../../errors.ts';

/** Where `npm run build:console` (run by `npm ci` and `npm start`) writes the web console. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

// The console talks only to this origin; highlights are server-escaped HTML, and no inline script ever runs.
const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Whether `file` is a regular file; a path that cannot name one (ENOTDIR, ENAMETOOLONG, ELOOP) is not. */
function isFile(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch (err) {
    if (['ENOTDIR', 'ENAMETOOLONG', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
}

/** The web console's built files under /console/ (no token: it signs in itself), and / sending browsers there. */
export default function serveConsole(app: App) {
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, async (_req, reply) => reply.redirect('/console/', 302));
  app.get('/console', hidden, async (_req, reply) => reply.redirect('/console/', 302));
  app.get('/console/*', hidden, async (req, reply) => {
    const rel = (req.params as { '*': string })['*'] || 'index.html';
    const file = path.resolve(CONSOLE_DIST, rel);
    if (!file.startsWith(CONSOLE_DIST) || !isFile(file)) {
      if (!fs.existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
        throw new AppError(503, 'The console is not built: run `npm run build:console` (npm ci and npm start do it).');
      }
      throw notFound('File');
    }
    const immutable = rel.startsWith('assets/');
    return reply
      .header('Content-Type', TYPES[path.extname(file)] ?? 'application/octet-stream')
      .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('Content-Security-Policy', CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .send(fs.createReadStream(file));
  });
}
