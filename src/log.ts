import pino, { type Logger } from 'pino';

const SECRET_QUERY = /([?&](?:code|auth_code|state|refresh_token|access_token|client_secret|token)=)[^&#]*/gi;

/** Query strings can carry OAuth codes and state: they never reach a log line. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.access_token',
        '*.refresh_token',
        '*.client_secret',
        '*.password',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        id: req.id,
      }),
    },
  });
}
