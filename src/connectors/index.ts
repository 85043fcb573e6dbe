import type { Config } from '../config.ts';
import type { Connector } from './types.ts';
import { createOneDriveConnector } from './onedrive/index.ts';
import { createZoomConnector } from './zoom/index.ts';

/** Every connector this server offers, configured. A third source is one more line here. */
export function createConnectors(config: Config): Connector[] {
  return [
    createZoomConnector({
      ...config.zoom,
      clientId: config.zoom.clientId ?? '',
      clientSecret: config.zoom.clientSecret ?? '',
    }),
    createOneDriveConnector({
      ...config.microsoft,
      clientId: config.microsoft.clientId ?? '',
      clientSecret: config.microsoft.clientSecret ?? '',
    }),
  ];
}
