import type { Server } from 'node:http';

/** Stops accepting connections, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeHttpServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => { server.closeAllConnections(); }, timeoutMs);
    force.unref();
    server.close((error) => {
      clearTimeout(force);
      if (error === undefined) resolve();
      else reject(error);
    });
    server.closeIdleConnections();
  });
}
