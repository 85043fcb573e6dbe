/** The service's environment pointing at a Microsoft sandbox (sandbox/microsoft) instead of Entra and Graph. */
export function microsoftEnv(ms: { clientId: string; clientSecret: string; loginUrl: string; graphUrl: string }) {
  return {
    MS_CLIENT_ID: ms.clientId,
    MS_CLIENT_SECRET: ms.clientSecret,
    MS_LOGIN_URL: ms.loginUrl,
    MS_GRAPH_URL: ms.graphUrl,
  };
}
